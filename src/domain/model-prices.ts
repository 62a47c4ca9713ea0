// What each model costs, in USD per million tokens (MTok) per usage class (usage.ts), as Anthropic
// publishes it: docs about-claude/pricing, "Model pricing" (https://platform.claude.com/docs/en/about-claude/pricing),
// and the per-model pages /docs/en/models/*/overview ("Pricing"), read on 2026-11-28 and kept in the model catalog (model-catalog.ts). The pricing
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
import { CACHE_PRICE_MULTIPLIERS, MODEL_RECORDS, standardPrice, usdPerMTok as usd, type BandedModelPrice, type ModelPrice } from './model-catalog.js';

export type { BandedModelPrice, ModelPrice };
export { CACHE_PRICE_MULTIPLIERS };

/** The date the documented prices were read, for docs and `buildfleet` output. */
export const PRICES_READ_ON = '2026-11-28';

/** The key of BUILDFLEET_MODEL_PRICES (and of the table) that prices every model it does not name. */
export const DEFAULT_PRICE_KEY = 'default';

/** The dearest documented price (Claude Opus 4.1 / Opus 4: $15 / $18.75 / $30 / $1.50 / $75), so a
 * model without a price is never under-budgeted. */
const DEAREST = standardPrice(15, 75);

/**
 * Every model id and alias with a documented price, from the model catalog (model-catalog.ts, which
 * cites the pricing page per model). Not priced, so at `default`: Claude Mythos Preview (no public
 * price). `claude-sim`, the simulator's own model, is priced like Claude Sonnet 4.6.
 */
export const DOCUMENTED_MODEL_PRICES: Readonly<Record<string, BandedModelPrice>> = Object.freeze({
  [DEFAULT_PRICE_KEY]: DEAREST,
  ...Object.fromEntries(MODEL_RECORDS.flatMap((record) => (record.price ? [record.id, ...record.aliases].map((name) => [name, record.price] as const) : []))),
  'claude-sim': standardPrice(3, 15),
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
 * A documented (or default) price with an override merged over it. An override replaces a banded
 * price with a flat one (the operator's negotiated price). A new `input` price carries the
 * cache classes the override does not name along by the standard multipliers (an operator who
 * sets a negotiated input price means its cache prices too); named classes are taken as given.
 * Null when the model has no documented price and the override lacks `input` or `output`.
 */
function mergePrice(model: string, override: ModelPriceOverride | undefined): BandedModelPrice | null {
  const documented = Object.hasOwn(DOCUMENTED_MODEL_PRICES, model) ? DOCUMENTED_MODEL_PRICES[model] : undefined;
  if (!override) return documented ?? null;
  const input = override.input ?? documented?.input;
  const output = override.output ?? documented?.output;
  if (input === undefined || output === undefined) return null;
  const base = override.input === undefined && documented ? documented : standardPrice(input, output);
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
  /** The price of a request with this prompt length (a banded price resolved to its band). */
  price: ModelPrice;
  /** `model`: the model's own entry (documented or configured); `default`: the fallback entry. */
  source: 'model' | 'default';
}

/** The flat price a request pays: a banded price's upper band when its prompt exceeds the band's
 * threshold (every token of that request, output included: about-claude/pricing, Haiku 5.5). */
function priceForPrompt(price: BandedModelPrice, promptTokens: number): ModelPrice {
  const { above, ...base } = price;
  return above && promptTokens > above.promptTokens ? above.price : base;
}

/** The model's price for a request whose prompt (input + cache reads + cache writes) is
 * `promptTokens` long: its own entry with the operator's override merged over it, else `default`.
 * Without `promptTokens` a banded price answers its dearest band (never understated). */
export function lookupModelPrice({
  model,
  overrides,
  promptTokens = Number.POSITIVE_INFINITY,
}: {
  model: string;
  overrides: ModelPriceOverrides;
  promptTokens?: number;
}): PriceLookup {
  const own = model === DEFAULT_PRICE_KEY ? null : mergePrice(model, overrides[model]);
  if (own) return { price: priceForPrompt(own, promptTokens), source: 'model' };
  // parseModelPriceOverrides guarantees a complete `default` override; the documented one always is.
  return { price: priceForPrompt(mergePrice(DEFAULT_PRICE_KEY, overrides[DEFAULT_PRICE_KEY]) ?? DEAREST, promptTokens), source: 'default' };
}
