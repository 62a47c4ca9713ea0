import { describe, expect, it } from 'vitest';
import { estimateRatio, estimateTextTokens, measuredTokenRatio, TOKENIZER_RATIOS } from './estimate-text-tokens.js';
import { lookupModelCapabilities } from './model-capabilities.js';

describe('estimateTextTokens', () => {
  it('is characters / 4 on the classic tokenizer and 30% more on the newer one', () => {
    expect(estimateTextTokens({ characters: 400, tokenizer: 'classic' })).toBe(100);
    expect(estimateTextTokens({ characters: 400, tokenizer: 'newer' })).toBe(130);
    // 4 × 1.3 is not exact in binary: 520 characters are 130 tokens, not 131.
    expect(estimateTextTokens({ characters: 520, tokenizer: 'newer' })).toBe(169);
    expect(estimateTextTokens({ characters: 0, tokenizer: 'newer' })).toBe(0);
  });

  it('follows the catalog: Sonnet 5.5 and Haiku 5.5 count on the newer tokenizer, Sonnet 4.6 and Haiku 4.5 on the classic one', () => {
    const tokenizerOf = (model: string) => lookupModelCapabilities({ model, overrides: {} }).capabilities.tokenizer;
    expect(tokenizerOf('claude-sonnet-5-5')).toBe('newer');
    expect(tokenizerOf('claude-haiku-5-5')).toBe('newer');
    expect(tokenizerOf('claude-sonnet-4-6')).toBe('classic');
    expect(tokenizerOf('claude-haiku-4-5')).toBe('classic');
    const text = 8000;
    expect(estimateTextTokens({ characters: text, tokenizer: tokenizerOf('claude-sonnet-5-5') }) / estimateTextTokens({ characters: text, tokenizer: tokenizerOf('claude-sonnet-4-6') })).toBeCloseTo(1.3, 5);
  });

  it('uses a measured ratio only above the documented one with its margin', () => {
    expect(estimateRatio({ tokenizer: 'newer', margin: 1.15 })).toBeCloseTo(TOKENIZER_RATIOS.newer * 1.15, 10);
    expect(estimateRatio({ tokenizer: 'newer', margin: 1.15, measuredRatio: 1.0 })).toBeCloseTo(1.495, 10);
    expect(estimateRatio({ tokenizer: 'newer', margin: 1.15, measuredRatio: 1.8 })).toBe(1.8);
    expect(estimateRatio({ tokenizer: 'classic', measuredRatio: Number.NaN })).toBe(1);
    expect(estimateTextTokens({ characters: 400, tokenizer: 'classic', measuredRatio: 1.5 })).toBe(150);
  });

  it('measures a ratio as counted tokens per characters / 4, and nothing from no count', () => {
    expect(measuredTokenRatio({ countedTokens: 130, characters: 400 })).toBeCloseTo(1.3, 10);
    expect(measuredTokenRatio({ countedTokens: 0, characters: 400 })).toBeNull();
    expect(measuredTokenRatio({ countedTokens: 10, characters: 0 })).toBeNull();
    expect(measuredTokenRatio({ countedTokens: Number.POSITIVE_INFINITY, characters: 10 })).toBeNull();
  });
});
