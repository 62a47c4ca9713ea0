import { describe, expect, it } from 'vitest';
import { lookupModelCapabilities } from '../domain/model-capabilities.js';
import { chooseToolChoice, mayForceToolChoice } from './tool-choice-policy.js';

const capabilitiesOf = (model: string) => lookupModelCapabilities({ model, overrides: {} }).capabilities;

describe('tool_choice policy', () => {
  it('forces the plan first, then is auto in every phase (the summary turn too), never any or none', () => {
    expect(chooseToolChoice({ planDue: true, mayForce: true })).toEqual({ type: 'tool', name: 'todo_write' });
    expect(chooseToolChoice({ planDue: false, mayForce: true })).toEqual({ type: 'auto' });
  });

  it('where forcing is not allowed never forces a tool: auto for the plan too', () => {
    for (const planDue of [false, true]) expect(chooseToolChoice({ planDue, mayForce: false })).toEqual({ type: 'auto' });
  });

  it('forces only where the model accepts forced tool_choice and the run does not think', () => {
    // The models that refuse `any` / `tool` outright, whatever the run's thinking.
    for (const model of ['claude-sonnet-5-5', 'claude-opus-5-5', 'claude-fable-5-1']) {
      for (const thinking of ['off', 'adaptive', 'between_tools'] as const) expect(mayForceToolChoice({ capabilities: capabilitiesOf(model), thinking })).toBe(false);
    }
    expect(mayForceToolChoice({ capabilities: capabilitiesOf('claude-sonnet-4-6'), thinking: 'off' })).toBe(true);
    expect(mayForceToolChoice({ capabilities: capabilitiesOf('claude-sonnet-4-6'), thinking: 'manual' })).toBe(false);
    expect(mayForceToolChoice({ capabilities: capabilitiesOf('claude-haiku-5-5'), thinking: 'off' })).toBe(true);
    expect(mayForceToolChoice({ capabilities: capabilitiesOf('claude-haiku-5-5'), thinking: 'adaptive' })).toBe(false);
  });
});
