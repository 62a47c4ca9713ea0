import { describe, expect, it } from 'vitest';
import { addUsage, cacheHitRatio, EMPTY_USAGE, totalInputTokens, totalTokens, usageByClassSchema, usageFromApi } from './usage.js';

describe('usage by class from the API’s usage', () => {
  it('keeps every class the API reports, cache writes by lifetime', () => {
    const usage = usageFromApi({
      input_tokens: 120,
      cache_creation_input_tokens: 3500,
      cache_read_input_tokens: 40_000,
      cache_creation: { ephemeral_5m_input_tokens: 3000, ephemeral_1h_input_tokens: 500 },
      output_tokens: 900,
    });
    expect(usage).toEqual({ input_tokens: 120, cache_write_5m_input_tokens: 3000, cache_write_1h_input_tokens: 500, cache_read_input_tokens: 40_000, output_tokens: 900 });
    // input_tokens excludes the cached parts: the prompt is the sum of the input classes.
    expect(totalInputTokens(usage)).toBe(120 + 3500 + 40_000);
    expect(totalTokens(usage)).toBe(120 + 3500 + 40_000 + 900);
  });

  it('prices writes without a lifetime breakdown at the default 5-minute lifetime, and nulls as 0', () => {
    expect(usageFromApi({ input_tokens: 10, output_tokens: 2, cache_creation_input_tokens: 800, cache_read_input_tokens: null, cache_creation: null })).toEqual({
      ...EMPTY_USAGE,
      input_tokens: 10,
      cache_write_5m_input_tokens: 800,
      output_tokens: 2,
    });
    expect(usageFromApi({ input_tokens: 10, output_tokens: 2 })).toEqual({ ...EMPTY_USAGE, input_tokens: 10, output_tokens: 2 });
  });

  it('never yields NaN or a negative count, whatever arrives', () => {
    const usage = usageFromApi({ input_tokens: Number.NaN, output_tokens: -5, cache_read_input_tokens: Number.POSITIVE_INFINITY });
    expect(usage).toEqual(EMPTY_USAGE);
    expect(cacheHitRatio(usage)).toBeNull();
  });
});

describe('usage arithmetic', () => {
  it('computes the cache hit ratio over all input tokens', () => {
    const usage = { ...EMPTY_USAGE, input_tokens: 100, cache_write_5m_input_tokens: 300, cache_read_input_tokens: 600, output_tokens: 50 };
    expect(cacheHitRatio(usage)).toBeCloseTo(0.6, 10);
    expect(addUsage(usage, usage)).toEqual({ ...EMPTY_USAGE, input_tokens: 200, cache_write_5m_input_tokens: 600, cache_read_input_tokens: 1200, output_tokens: 100 });
  });

  it('decodes a stored usage from before the cache classes, and refuses a count that is not one', () => {
    expect(usageByClassSchema.parse({ input_tokens: 7, output_tokens: 3 })).toEqual({ ...EMPTY_USAGE, input_tokens: 7, output_tokens: 3 });
    expect(usageByClassSchema.safeParse({ input_tokens: 7, output_tokens: 3, cache_read_input_tokens: 1.5 }).success).toBe(false);
    expect(usageByClassSchema.safeParse({ input_tokens: 7 }).success).toBe(false);
  });
});
