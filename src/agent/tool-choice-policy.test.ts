import { describe, expect, it } from 'vitest';
import { chooseToolChoice } from './tool-choice-policy.js';

describe('tool_choice policy', () => {
  it('forces the plan first, is auto while building, none for the summary, never any', () => {
    expect(chooseToolChoice({ phase: 'planning', hasPlan: false, finishVerified: false })).toEqual({ type: 'tool', name: 'todo_write' });
    expect(chooseToolChoice({ phase: 'building', hasPlan: true, finishVerified: false })).toEqual({ type: 'auto' });
    expect(chooseToolChoice({ phase: 'verifying', hasPlan: true, finishVerified: false })).toEqual({ type: 'auto' });
    expect(chooseToolChoice({ phase: 'done', hasPlan: true, finishVerified: true })).toEqual({ type: 'none' });
  });
});
