import { describe, expect, it } from 'vitest';
import { PHASES } from '../domain/profile.js';
import { chooseToolChoice } from './tool-choice-policy.js';

describe('tool_choice policy', () => {
  it('forces the plan first, then is auto in every phase (the summary turn too), never any or none', () => {
    expect(chooseToolChoice({ phase: 'planning', hasPlan: false, thinking: false })).toEqual({ type: 'tool', name: 'todo_write' });
    expect(chooseToolChoice({ phase: 'planning', hasPlan: true, thinking: false })).toEqual({ type: 'auto' });
    expect(chooseToolChoice({ phase: 'building', hasPlan: true, thinking: false })).toEqual({ type: 'auto' });
    expect(chooseToolChoice({ phase: 'verifying', hasPlan: true, thinking: false })).toEqual({ type: 'auto' });
  });

  it('with thinking on never forces a tool: auto for the plan too', () => {
    for (const phase of PHASES) {
      for (const hasPlan of [false, true]) expect(chooseToolChoice({ phase, hasPlan, thinking: true })).toEqual({ type: 'auto' });
    }
  });
});
