import { describe, expect, it } from 'vitest';
import { chooseToolChoice } from './tool-choice-policy.js';

describe('tool_choice policy', () => {
  it('forces the plan first, is auto while building, none for the summary, never any', () => {
    expect(chooseToolChoice({ phase: 'planning', hasPlan: false, finishVerified: false, thinking: false })).toEqual({ type: 'tool', name: 'todo_write' });
    expect(chooseToolChoice({ phase: 'building', hasPlan: true, finishVerified: false, thinking: false })).toEqual({ type: 'auto' });
    expect(chooseToolChoice({ phase: 'verifying', hasPlan: true, finishVerified: false, thinking: false })).toEqual({ type: 'auto' });
    expect(chooseToolChoice({ phase: 'done', hasPlan: true, finishVerified: true, thinking: false })).toEqual({ type: 'none' });
  });

  it('with thinking on never forces a tool: auto for the plan, none for the summary', () => {
    for (const phase of ['planning', 'building', 'verifying', 'done'] as const) {
      for (const hasPlan of [false, true]) {
        for (const finishVerified of [false, true]) {
          const choice = chooseToolChoice({ phase, hasPlan, finishVerified, thinking: true });
          expect(['auto', 'none']).toContain(choice.type);
        }
      }
    }
    expect(chooseToolChoice({ phase: 'planning', hasPlan: false, finishVerified: false, thinking: true })).toEqual({ type: 'auto' });
  });
});
