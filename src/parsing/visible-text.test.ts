import { describe, expect, it } from 'vitest';
import { extractVisibleText } from './visible-text.js';

describe('extractVisibleText', () => {
  it('drops closed think blocks, leaving a line break in their place', () => {
    expect(extractVisibleText('a<think>hidden</think>b<think>more</think>c')).toBe('a\nb\nc');
  });

  it('hides everything after an unclosed <think>', () => {
    expect(extractVisibleText('shown<think>hidden <tool_call>{}</tool_call>')).toBe('shown');
  });

  it('treats a </think> before any <think> as closing a block the prompt opened', () => {
    expect(extractVisibleText("I'm\nthinking</think>answer")).toBe('answer');
  });

  it('leaves text without reasoning alone', () => {
    expect(extractVisibleText('plain text')).toBe('plain text');
  });
});
