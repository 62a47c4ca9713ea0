// What tokens cost: usage by class (usage.ts) times the model's price (model-prices.ts). Costs are
// whole micro-dollars (µUSD, a millionth of a dollar), so they add up in Redis with integer
// increments and never drift the way summed floats do. A token at $P per million tokens costs P
// µUSD; the sum over an answer's classes is computed exactly (BigInt over prices kept to a
// millionth of a dollar per MTok) and rounded half up once, per answer: at most half a micro-dollar
// per model call.
import { lookupModelPrice, type ModelPrice, type ModelPriceOverrides } from './model-prices.js';
import type { UsageByClass, UsageClass } from './usage.js';

const MICRO_PER_USD = 1_000_000;

/** Which price each usage class is billed at. */
const PRICE_OF_CLASS: Readonly<Record<UsageClass, keyof ModelPrice>> = {
  input_tokens: 'input',
  cache_write_5m_input_tokens: 'cacheWrite5m',
  cache_write_1h_input_tokens: 'cacheWrite1h',
  cache_read_input_tokens: 'cacheRead',
  output_tokens: 'output',
};

/** µUSD per MTok as an exact integer (prices are kept to a millionth of a dollar per MTok). */
function microUsdPerMTok(usdPerMTok: number): bigint {
  return BigInt(Math.round(usdPerMTok * MICRO_PER_USD));
}

/** Σ tokens × price (exact, in µUSD × 10⁻⁶) to whole µUSD: half up for a cost, up for an
 * estimate (which must never understate). */
function roundedMicroUsd(terms: Array<{ tokens: number; usdPerMTok: number }>, rounding: 'half_up' | 'up' = 'half_up'): number {
  let sum = 0n;
  for (const { tokens, usdPerMTok } of terms) sum += BigInt(tokens) * microUsdPerMTok(usdPerMTok);
  return Number((sum + (rounding === 'up' ? 999_999n : 500_000n)) / 1_000_000n);
}

/** The cost of `usage` at `price`, in whole micro-dollars. */
export function costMicroUsd({ usage, price }: { usage: UsageByClass; price: ModelPrice }): number {
  return roundedMicroUsd(
    (Object.keys(PRICE_OF_CLASS) as UsageClass[]).map((usageClass) => ({ tokens: usage[usageClass], usdPerMTok: price[PRICE_OF_CLASS[usageClass]] })),
  );
}

/** Micro-dollars as dollars (for the API and events; stored values stay integers). */
export function microUsdToUsd(microUsd: number): number {
  return microUsd / MICRO_PER_USD;
}

/** Dollars (a budget or a limit as a person writes it) as whole micro-dollars, rounded to the
 * nearest: amounts are accepted to a millionth of a dollar, and 0.1 × 10⁶ is not exactly 100000. */
export function usdToMicroUsd(usd: number): number {
  return Math.round(usd * MICRO_PER_USD);
}

/** One answer's cost: the model's price from the table (with the operator's overrides) times its
 * usage. `priceSource` says whether the model had its own price or fell back to `default`. */
export function costOfAnswer({ model, usage, overrides }: { model: string; usage: UsageByClass; overrides: ModelPriceOverrides }): {
  costMicroUsd: number;
  priceSource: 'model' | 'default';
} {
  // A banded price (Haiku 5.5) is chosen by the prompt's length: input + cache reads + cache writes.
  const promptTokens = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_write_5m_input_tokens + usage.cache_write_1h_input_tokens;
  const { price, source } = lookupModelPrice({ model, overrides, promptTokens });
  return { costMicroUsd: costMicroUsd({ usage, price }), priceSource: source };
}

export interface CallCostEstimateInput {
  model: string;
  /** Every input token the call will send (tools, system, messages), however it may be cached. */
  inputTokens: number;
  /** The call's max_tokens (thinking included): the most it can be billed for output. */
  maxOutputTokens: number;
  /** The lifetime the prompt's breakpoints write at, or null when the request has none. A write
   * costs more than uncached input (1.25× or 2×), so the worst case prices every input token at
   * the dearer of the two. */
  cacheLifetime?: '5m' | '1h' | null;
  overrides?: ModelPriceOverrides;
}

/**
 * The most one call can cost, before it is made, in micro-dollars: every input token at the
 * dearest way it can be billed (uncached, or written at `cacheLifetime`) — no cache read assumed —
 * plus max_tokens of output. For budget checks: a call this estimate admits cannot cost more.
 */
export function estimateCallCostMicroUsd({ model, inputTokens, maxOutputTokens, cacheLifetime = null, overrides = {} }: CallCostEstimateInput): number {
  const { price } = lookupModelPrice({ model, overrides, promptTokens: inputTokens });
  const written = cacheLifetime === '1h' ? price.cacheWrite1h : cacheLifetime === '5m' ? price.cacheWrite5m : 0;
  const tokens = (value: number) => (Number.isFinite(value) && value > 0 ? Math.ceil(value) : 0);
  return roundedMicroUsd(
    [
      { tokens: tokens(inputTokens), usdPerMTok: Math.max(price.input, written) },
      { tokens: tokens(maxOutputTokens), usdPerMTok: price.output },
    ],
    'up',
  );
}
