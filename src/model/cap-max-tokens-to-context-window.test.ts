import { describe, expect, it } from 'vitest';
import { capMaxTokensToContextWindow, MINIMUM_ANSWER_TOKENS } from './cap-max-tokens-to-context-window.js';

describe('capMaxTokensToContextWindow', () => {
  it('keeps the run’s max_tokens while the prompt leaves room for it', () => {
    expect(capMaxTokensToContextWindow({ maxTokens: 16_384, contextWindowTokens: 200_000, estimatedPromptTokens: 50_000, thinkingBudgetTokens: null })).toBe(16_384);
    expect(capMaxTokensToContextWindow({ maxTokens: 16_384, contextWindowTokens: 200_000, estimatedPromptTokens: 200_000 - 16_384, thinkingBudgetTokens: null })).toBe(16_384);
  });

  it('lowers it to what the window leaves', () => {
    expect(capMaxTokensToContextWindow({ maxTokens: 16_384, contextWindowTokens: 200_000, estimatedPromptTokens: 190_000, thinkingBudgetTokens: null })).toBe(10_000);
    expect(capMaxTokensToContextWindow({ maxTokens: 20_480, contextWindowTokens: 200_000, estimatedPromptTokens: 190_000, thinkingBudgetTokens: 4096 })).toBe(10_000);
  });

  it('never goes below the thinking budget plus room for an answer, nor above the run’s max_tokens', () => {
    expect(capMaxTokensToContextWindow({ maxTokens: 16_384, contextWindowTokens: 200_000, estimatedPromptTokens: 199_900, thinkingBudgetTokens: null })).toBe(MINIMUM_ANSWER_TOKENS);
    expect(capMaxTokensToContextWindow({ maxTokens: 20_480, contextWindowTokens: 200_000, estimatedPromptTokens: 198_000, thinkingBudgetTokens: 4096 })).toBe(4096 + MINIMUM_ANSWER_TOKENS);
    // A prompt already over the window: the call goes with the floor and the API's answer ends the run.
    expect(capMaxTokensToContextWindow({ maxTokens: 20_480, contextWindowTokens: 200_000, estimatedPromptTokens: 250_000, thinkingBudgetTokens: 4096 })).toBe(4096 + MINIMUM_ANSWER_TOKENS);
    // A run whose max_tokens is already under the floor keeps it (always above its budget).
    expect(capMaxTokensToContextWindow({ maxTokens: 2500, contextWindowTokens: 200_000, estimatedPromptTokens: 199_000, thinkingBudgetTokens: 2048 })).toBe(2500);
    expect(capMaxTokensToContextWindow({ maxTokens: 500, contextWindowTokens: 200_000, estimatedPromptTokens: 199_900, thinkingBudgetTokens: null })).toBe(500);
  });
});
