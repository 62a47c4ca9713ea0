import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import { MODEL_RECORDS } from './model-catalog.js';
import { CACHE_PRICE_MULTIPLIERS, DEFAULT_PRICE_KEY, DOCUMENTED_MODEL_PRICES, lookupModelPrice, parseModelPriceOverrides } from './model-prices.js';

describe('the documented price table', () => {
  it('prices every model the fleet can run, at the published prices', () => {
    // Every model a run can use has its own price but Mythos Preview, which has no public one.
    const served = MODEL_RECORDS.filter((record) => record.lifecycle.status !== 'retired' && record.id !== 'claude-mythos-preview');
    for (const record of served) {
      for (const model of [record.id, ...record.aliases]) expect(lookupModelPrice({ model, overrides: {} }).source, model).toBe('model');
    }
    // docs about-claude/pricing, "Model pricing".
    expect(lookupModelPrice({ model: 'claude-sonnet-4-6', overrides: {} }).price).toEqual({ input: 3, cacheWrite5m: 3.75, cacheWrite1h: 6, cacheRead: 0.3, output: 15 });
    expect(lookupModelPrice({ model: 'claude-opus-4-6', overrides: {} }).price).toEqual({ input: 5, cacheWrite5m: 6.25, cacheWrite1h: 10, cacheRead: 0.5, output: 25 });
    expect(lookupModelPrice({ model: 'claude-haiku-4-5-20251001', overrides: {} }).price).toEqual({ input: 1, cacheWrite5m: 1.25, cacheWrite1h: 2, cacheRead: 0.1, output: 5 });
    expect(lookupModelPrice({ model: 'claude-sonnet-5-5', overrides: {} }).price).toEqual({ input: 2, cacheWrite5m: 2.5, cacheWrite1h: 4, cacheRead: 0.2, output: 10 });
    // Listed prices that differ from the multipliers are kept as listed.
    expect(lookupModelPrice({ model: 'claude-opus-5-5', overrides: {} }).price).toEqual({ input: 4, cacheWrite5m: 5, cacheWrite1h: 8, cacheRead: 0.2, output: 20 });
    expect(lookupModelPrice({ model: 'claude-fable-5-2', overrides: {} }).price).toEqual({ input: 8, cacheWrite5m: 10, cacheWrite1h: 16, cacheRead: 0.2, output: 40 });
    expect(lookupModelPrice({ model: 'claude-fable-5-1', overrides: {} }).price).toMatchObject({ input: 10, cacheRead: 0.25, output: 50 });
  });

  it('prices Claude Haiku 5.5 by the prompt’s length: the upper band on every token of a request over 100,000 prompt tokens', () => {
    const lower = { input: 0.1, cacheWrite5m: 0.125, cacheWrite1h: 0.2, cacheRead: 0.01, output: 0.5 };
    const upper = { input: 0.5, cacheWrite5m: 0.625, cacheWrite1h: 1, cacheRead: 0.05, output: 2.5 };
    expect(lookupModelPrice({ model: 'claude-haiku-5-5', overrides: {}, promptTokens: 100_000 }).price).toEqual(lower);
    expect(lookupModelPrice({ model: 'claude-haiku-5-5', overrides: {}, promptTokens: 100_001 }).price).toEqual(upper);
    // Without a prompt length (a budget estimate before the call) the dearer band: never understated.
    expect(lookupModelPrice({ model: 'claude-haiku-5-5', overrides: {} }).price).toEqual(upper);
  });

  it('derives cache prices from the base input price by the documented multipliers', () => {
    expect(CACHE_PRICE_MULTIPLIERS).toEqual({ cacheWrite5m: 1.25, cacheWrite1h: 2, cacheRead: 0.1 });
    for (const model of ['claude-sonnet-4-5', 'claude-opus-4-5', 'claude-sonnet-5-5', 'claude-sim']) {
      const price = DOCUMENTED_MODEL_PRICES[model]!;
      expect(price.cacheWrite5m, model).toBeCloseTo(price.input * 1.25, 9);
      expect(price.cacheWrite1h, model).toBeCloseTo(price.input * 2, 9);
      expect(price.cacheRead, model).toBeCloseTo(price.input * 0.1, 9);
    }
  });

  it('prices a model it does not know at `default`, the dearest documented model, never at NaN', () => {
    const unknown = lookupModelPrice({ model: 'my-proxy-model', overrides: {} });
    expect(unknown.source).toBe('default');
    expect(unknown.price).toEqual(DOCUMENTED_MODEL_PRICES[DEFAULT_PRICE_KEY]);
    for (const price of Object.values(DOCUMENTED_MODEL_PRICES)) expect(price.output).toBeLessThanOrEqual(unknown.price.output);
    // `default` is not a model a run can name to get the fallback price under its own name.
    expect(lookupModelPrice({ model: DEFAULT_PRICE_KEY, overrides: {} }).source).toBe('default');
  });
});

describe('BUILDFLEET_MODEL_PRICES', () => {
  it('merges overrides: a new input price carries its cache prices, named classes are kept as given', () => {
    const overrides = parseModelPriceOverrides(
      JSON.stringify({
        'claude-sonnet-4-6': { input: 2 },
        'claude-opus-4-6': { cacheRead: 0.25 },
        'my-proxy-model': { input: 1, output: 4, cacheWrite1h: 1.5 },
        default: { input: 20, output: 100 },
      }),
    );
    expect(lookupModelPrice({ model: 'claude-sonnet-4-6', overrides }).price).toEqual({ input: 2, cacheWrite5m: 2.5, cacheWrite1h: 4, cacheRead: 0.2, output: 15 });
    expect(lookupModelPrice({ model: 'claude-opus-4-6', overrides }).price).toEqual({ input: 5, cacheWrite5m: 6.25, cacheWrite1h: 10, cacheRead: 0.25, output: 25 });
    expect(lookupModelPrice({ model: 'my-proxy-model', overrides })).toEqual({ source: 'model', price: { input: 1, cacheWrite5m: 1.25, cacheWrite1h: 1.5, cacheRead: 0.1, output: 4 } });
    expect(lookupModelPrice({ model: 'nobody-knows', overrides })).toEqual({ source: 'default', price: { input: 20, cacheWrite5m: 25, cacheWrite1h: 40, cacheRead: 2, output: 100 } });
  });

  it('refuses malformed or incomplete entries with a message naming them', () => {
    expect(() => parseModelPriceOverrides('{nope')).toThrow(/not valid JSON/);
    expect(() => parseModelPriceOverrides(JSON.stringify({ m: { input: -1, output: 2 } }))).toThrow(/m\.input/);
    expect(() => parseModelPriceOverrides(JSON.stringify({ m: { input: 1, output: 2, colour: 'red' } }))).toThrow(/colour/);
    expect(() => parseModelPriceOverrides(JSON.stringify({ m: { input: 1 } }))).toThrow(/m: a model without a documented price needs at least "input" and "output"/);
    expect(() => parseModelPriceOverrides(JSON.stringify({ m: { input: '3' } }))).toThrow(/m\.input/);
    expect(parseModelPriceOverrides('  ')).toEqual({});
  });

  it('is validated at boot, naming the variable', () => {
    expect(() => loadConfig({ BUILDFLEET_MODEL_PRICES: '{"claude-sonnet-4-6": {"output": "a lot"}}' })).toThrow(ConfigError);
    expect(() => loadConfig({ BUILDFLEET_MODEL_PRICES: '{"claude-sonnet-4-6": {"output": "a lot"}}' })).toThrow(/BUILDFLEET_MODEL_PRICES/);
    expect(loadConfig({ BUILDFLEET_MODEL_PRICES: '{"claude-sonnet-4-6": {"output": 12}}' }).BUILDFLEET_MODEL_PRICES).toEqual({ 'claude-sonnet-4-6': { output: 12 } });
  });
});
