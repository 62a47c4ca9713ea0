// What each model costs, in USD per million tokens (MTok) per usage class (usage.ts), as Anthropic
// publishes it: docs about-claude/pricing, "Model pricing" (https://platform.claude.com/docs/en/about-claude/pricing),
// and the per-model pages /docs/en/models/*/overview ("Pricing"), read on 2026-11-23. The pricing
// page's "Prompt caching" multipliers — 5-minute cache writes 1.25× the base input price, 1-hour
// writes 2×, cache reads 0.1× — hold for most models; where a model's listed price differs (Claude
// Haiku 3, Fable 5.1, Opus 5.5…) the listed price is used. docs/costs.md has the table and what is
// not modelled (long-context premiums, regional inference, Batch and priority tiers).
//
// An operator corrects or adds prices with BUILDFLEET_MODEL_PRICES (parsed here, validated at
// boot). A model with no price is priced at the `default` entry — the most expensive documented
// model unless configured — so a cost or a budget estimate is never understated, and never NaN.
import { parseJsonSetting } from './parse-json-setting.js';
import { z } from 'zod';

/** USD per million tokens of each usage class. */
export interface ModelPrice {
  input: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  cacheRead: number;
  output: number;
}

/** The date the documented prices were read, for docs and `buildfleet` output. */
export const PRICES_READ_ON = '2026-11-23';

/** The pricing page's multipliers of the base input price ("Prompt caching" under "Feature-specific pricing"). */
export const CACHE_PRICE_MULTIPLIERS = Object.freeze({ cacheWrite5m: 1.25, cacheWrite1h: 2, cacheRead: 0.1 });

/** The key of BUILDFLEET_MODEL_PRICES (and of the table) that prices every model it does not name. */
export const DEFAULT_PRICE_KEY = 'default';

/** Rounded to a millionth of a dollar per MTok, so derived prices (1.25 × $0.80) stay exact. */
function usd(value: number): number {
  return Math.round(value * 1_000_000) / 1_000_000;
}

/** A price whose cache classes follow the standard multipliers of its input price. */
function standard(input: number, output: number): ModelPrice {
  return {
    input,
    cacheWrite5m: usd(input * CACHE_PRICE_MULTIPLIERS.cacheWrite5m),
    cacheWrite1h: usd(input * CACHE_PRICE_MULTIPLIERS.cacheWrite1h),
    cacheRead: usd(input * CACHE_PRICE_MULTIPLIERS.cacheRead),
    output,
  };
}

const opus41 = standard(15, 75); // Opus 4.1, Opus 4: $15 / $18.75 / $30 / $1.50 / $75
const opus45 = standard(5, 25); // Opus 4.5 – 4.8, Opus 5: $5 / $6.25 / $10 / $0.50 / $25
const sonnet4 = standard(3, 15); // Sonnet 4, 4.5, 4.6, 3.7: $3 / $3.75 / $6 / $0.30 / $15
const haiku45 = standard(1, 5); // Haiku 4.5: $1 / $1.25 / $2 / $0.10 / $5
const haiku35 = standard(0.8, 4); // Haiku 3.5: $0.80 / $1 / $1.60 / $0.08 / $4
// Listed prices that do not follow the multipliers exactly.
const haiku3: ModelPrice = { input: 0.25, cacheWrite5m: 0.3, cacheWrite1h: 0.5, cacheRead: 0.03, output: 1.25 };
const opus55: ModelPrice = { input: 4, cacheWrite5m: 5, cacheWrite1h: 8, cacheRead: 0.2, output: 20 };
const sonnet5 = standard(2, 10); // Sonnet 5 and 5.5 (models pages): $2 / $2.50 / $4 / $0.20 / $10
const fable5 = standard(10, 50); // Fable 5, Mythos 5: $10 / $12.50 / $20 / $1 / $50
const fable51: ModelPrice = { ...fable5, cacheRead: 0.25 }; // Fable 5.1, Mythos 5.1: cache hits $0.25

/**
 * Every model id and alias with a documented price: the fleet's capability table
 * (model-capabilities.ts) and the simulator's catalog (src/sim/model-catalog.ts). Not priced, so
 * at `default`: Claude Haiku 5.5 (its price depends on the prompt's length, which a flat table
 * cannot hold) and Claude Mythos Preview (no public price). `claude-sim`, the simulator's own
 * model, is priced like Claude Sonnet 4.6, the fleet's default model it stands in for.
 */
export const DOCUMENTED_MODEL_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  [DEFAULT_PRICE_KEY]: opus41,
  'claude-fable-5-1': fable51,
  'claude-mythos-5-1': fable51,
  'claude-fable-5': fable5,
  'claude-mythos-5': fable5,
  'claude-opus-5-5': opus55,
  'claude-opus-5': opus45,
  'claude-sonnet-5-5': sonnet5,
  'claude-sonnet-5': sonnet5,
  'claude-opus-4-8': opus45,
  'claude-opus-4-7': opus45,
  'claude-opus-4-6': opus45,
  'claude-opus-4-5': opus45,
  'claude-opus-4-5-20251101': opus45,
  'claude-sonnet-4-6': sonnet4,
  'claude-sonnet-4-5': sonnet4,
  'claude-sonnet-4-5-20250929': sonnet4,
  'claude-haiku-4-5': haiku45,
  'claude-haiku-4-5-20251001': haiku45,
  'claude-opus-4-1': opus41,
  'claude-opus-4-1-20250805': opus41,
  'claude-opus-4-0': opus41,
  'claude-opus-4-20250514': opus41,
  'claude-sonnet-4-0': sonnet4,
  'claude-sonnet-4-20250514': sonnet4,
  'claude-3-7-sonnet-20250219': sonnet4,
  'claude-3-7-sonnet-latest': sonnet4,
  'claude-3-5-haiku-20241022': haiku35,
  'claude-3-5-haiku-latest': haiku35,
  'claude-3-haiku-20240307': haiku3,
  'claude-sim': sonnet4,
});

const usdPerMTok = z.number().nonnegative().max(10_000);

/** One entry of BUILDFLEET_MODEL_PRICES: USD per million tokens, any subset of the classes. */
const priceOverride = z.strictObject({
  input: usdPerMTok.optional(),
  cacheWrite5m: usdPerMTok.optional(),
  cacheWrite1h: usdPerMTok.optional(),
  cacheRead: usdPerMTok.optional(),
  output: usdPerMTok.optional(),
});
export type ModelPriceOverride = z.infer<typeof priceOverride>;

export const modelPriceOverridesSchema = z.record(z.string().min(1).max(200), priceOverride);
export type ModelPriceOverrides = z.infer<typeof modelPriceOverridesSchema>;

/**
 * A documented (or default) price with an override merged over it. A new `input` price carries the
 * cache classes the override does not name along by the standard multipliers (an operator who
 * sets a negotiated input price means its cache prices too); named classes are taken as given.
 * Null when the model has no documented price and the override lacks `input` or `output`.
 */
function mergePrice(model: string, override: ModelPriceOverride | undefined): ModelPrice | null {
  const documented = Object.hasOwn(DOCUMENTED_MODEL_PRICES, model) ? DOCUMENTED_MODEL_PRICES[model] : undefined;
  if (!override) return documented ?? null;
  const input = override.input ?? documented?.input;
  const output = override.output ?? documented?.output;
  if (input === undefined || output === undefined) return null;
  const base = override.input === undefined && documented ? documented : standard(input, output);
  return {
    input,
    cacheWrite5m: usd(override.cacheWrite5m ?? base.cacheWrite5m),
    cacheWrite1h: usd(override.cacheWrite1h ?? base.cacheWrite1h),
    cacheRead: usd(override.cacheRead ?? base.cacheRead),
    output,
  };
}

/** Parses BUILDFLEET_MODEL_PRICES (JSON: model id or `default` → USD per MTok by class). Throws an
 * Error whose message names every bad entry. */
export function parseModelPriceOverrides(text: string): ModelPriceOverrides {
  const data = parseJsonSetting(text, modelPriceOverridesSchema);
  if (data === null) return {};
  const incomplete = Object.entries(data)
    .filter(([model, override]) => mergePrice(model, override) === null)
    .map(([model]) => `${model}: a model without a documented price needs at least "input" and "output"`);
  if (incomplete.length > 0) throw new Error(incomplete.join('; '));
  return data;
}

export interface PriceLookup {
  price: ModelPrice;
  /** `model`: the model's own entry (documented or configured); `default`: the fallback entry. */
  source: 'model' | 'default';
}

/** The model's price: its own entry with the operator's override merged over it, else `default`. */
export function lookupModelPrice({ model, overrides }: { model: string; overrides: ModelPriceOverrides }): PriceLookup {
  const own = model === DEFAULT_PRICE_KEY ? null : mergePrice(model, overrides[model]);
  if (own) return { price: own, source: 'model' };
  // parseModelPriceOverrides guarantees a complete `default` override; the documented one always is.
  return { price: mergePrice(DEFAULT_PRICE_KEY, overrides[DEFAULT_PRICE_KEY]) ?? opus41, source: 'default' };
}
