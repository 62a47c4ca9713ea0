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

describe("Mistral's [THINK] special tokens", () => {
  it('drop closed blocks and hide an unclosed one, like <think>', () => {
    expect(extractVisibleText('a[THINK]hidden[/THINK]b')).toBe('a\nb');
    expect(extractVisibleText('shown[THINK]hidden [TOOL_CALLS]x[ARGS]{}')).toBe('shown');
  });

  it('hide a Magistral draft call while the call after the block stays', () => {
    const text = '[THINK]I could call [TOOL_CALLS]get_weather[ARGS]{"city": "Bern"}[/THINK][TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}';
    expect(extractVisibleText(text)).toBe('\n[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}');
  });
});
