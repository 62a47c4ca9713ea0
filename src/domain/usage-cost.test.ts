import { describe, expect, it } from 'vitest';
import { costMicroUsd, costOfAnswer, estimateCallCostMicroUsd, microUsdToUsd } from './usage-cost.js';
import { lookupModelPrice } from './model-prices.js';
import { EMPTY_USAGE } from './usage.js';

const sonnet = lookupModelPrice({ model: 'claude-sonnet-4-6', overrides: {} }).price;

describe('the cost of usage', () => {
  it('prices each class at its own price: a token at $P per million costs P micro-dollars', () => {
    const usage = { input_tokens: 1000, cache_write_5m_input_tokens: 2000, cache_write_1h_input_tokens: 1000, cache_read_input_tokens: 10_000, output_tokens: 500 };
    // 1000 × 3 + 2000 × 3.75 + 1000 × 6 + 10,000 × 0.30 + 500 × 15 = 3000 + 7500 + 6000 + 3000 + 7500
    expect(costMicroUsd({ usage, price: sonnet })).toBe(27_000);
    expect(microUsdToUsd(27_000)).toBe(0.027);
  });

  it('is exact in integers and rounds half up once per answer', () => {
    // 1 cache read at $0.30/MTok is 0.3 µUSD: rounds to 0; 5 of them are 1.5 µUSD: rounds to 2.
    expect(costMicroUsd({ usage: { ...EMPTY_USAGE, cache_read_input_tokens: 1 }, price: sonnet })).toBe(0);
    expect(costMicroUsd({ usage: { ...EMPTY_USAGE, cache_read_input_tokens: 5 }, price: sonnet })).toBe(2);
    // Floats would drift here (0.1 + 0.2); integers do not.
    const odd = { input: 0.1, cacheWrite5m: 0.2, cacheWrite1h: 0, cacheRead: 0, output: 0 };
    expect(costMicroUsd({ usage: { ...EMPTY_USAGE, input_tokens: 10, cache_write_5m_input_tokens: 10 }, price: odd })).toBe(3);
    expect(costMicroUsd({ usage: EMPTY_USAGE, price: sonnet })).toBe(0);
    // A whole 1M-token context at Opus 4.1 prices stays exact.
    const opus41 = lookupModelPrice({ model: 'claude-opus-4-1', overrides: {} }).price;
    expect(costMicroUsd({ usage: { ...EMPTY_USAGE, cache_write_1h_input_tokens: 1_000_000, output_tokens: 32_000 }, price: opus41 })).toBe(30_000_000 + 2_400_000);
  });

  it('prices an answer by its run’s model, falling back to `default`', () => {
    const usage = { ...EMPTY_USAGE, input_tokens: 1_000_000 };
    expect(costOfAnswer({ model: 'claude-haiku-4-5', usage, overrides: {} })).toEqual({ costMicroUsd: 1_000_000, priceSource: 'model' });
    expect(costOfAnswer({ model: 'unheard-of', usage, overrides: {} })).toEqual({ costMicroUsd: 15_000_000, priceSource: 'default' });
  });
});

describe('estimateCallCostMicroUsd (the worst case of one call, for budget checks)', () => {
  it('prices every input token uncached, plus all of max_tokens', () => {
    expect(estimateCallCostMicroUsd({ model: 'claude-sonnet-4-6', inputTokens: 20_000, maxOutputTokens: 16_384 })).toBe(60_000 + 245_760);
  });

  it('prices every input token as written when the prompt writes the cache, at that lifetime', () => {
    expect(estimateCallCostMicroUsd({ model: 'claude-sonnet-4-6', inputTokens: 20_000, maxOutputTokens: 0, cacheLifetime: '5m' })).toBe(75_000);
    expect(estimateCallCostMicroUsd({ model: 'claude-sonnet-4-6', inputTokens: 20_000, maxOutputTokens: 0, cacheLifetime: '1h' })).toBe(120_000);
  });

  it('never understates: rounds up, and counts what any real answer of that call could cost', () => {
    expect(estimateCallCostMicroUsd({ model: 'claude-sonnet-4-6', inputTokens: 1, maxOutputTokens: 0 })).toBe(3);
    expect(estimateCallCostMicroUsd({ model: 'claude-sonnet-4-6', inputTokens: 0, maxOutputTokens: 0 })).toBe(0);
    const estimate = estimateCallCostMicroUsd({ model: 'claude-sonnet-4-6', inputTokens: 10_000, maxOutputTokens: 4096, cacheLifetime: '1h' });
    for (const split of [
      { ...EMPTY_USAGE, input_tokens: 10_000, output_tokens: 4096 },
      { ...EMPTY_USAGE, cache_write_1h_input_tokens: 10_000, output_tokens: 4096 },
      { ...EMPTY_USAGE, cache_read_input_tokens: 9000, cache_write_1h_input_tokens: 1000, output_tokens: 4096 },
    ]) {
      expect(costMicroUsd({ usage: split, price: sonnet })).toBeLessThanOrEqual(estimate);
    }
    expect(estimateCallCostMicroUsd({ model: 'no-such-model', inputTokens: 1_000_000, maxOutputTokens: 0, overrides: { default: { input: 2, output: 8 } } })).toBe(2_000_000);
  });
});
