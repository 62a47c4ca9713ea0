// Token usage by billing class: the one place that knows how the Messages API splits a prompt's
// tokens and how the fleet keeps them. The API's `usage` (SDK `Usage`,
// @anthropic-ai/sdk resources/messages/messages.d.ts) reports `input_tokens`,
// `cache_creation_input_tokens` with its `cache_creation` breakdown by lifetime
// (`ephemeral_5m_input_tokens`, `ephemeral_1h_input_tokens`), `cache_read_input_tokens` and
// `output_tokens`. `input_tokens` excludes the cached parts: docs build-with-claude/prompt-caching,
// "Tracking cache performance" — "total_input_tokens = cache_read_input_tokens +
// cache_creation_input_tokens + input_tokens" — so the classes add up to the whole prompt and each
// is priced on its own (docs about-claude/pricing).
import { z } from 'zod';

/** The classes, each billed at its own price. `input_tokens` is uncached input (the API's name). */
export const USAGE_CLASSES = [
  'input_tokens',
  'cache_write_5m_input_tokens',
  'cache_write_1h_input_tokens',
  'cache_read_input_tokens',
  'output_tokens',
] as const;
export type UsageClass = (typeof USAGE_CLASSES)[number];

/** The input classes: what a prompt is made of. */
export const INPUT_USAGE_CLASSES = [
  'input_tokens',
  'cache_write_5m_input_tokens',
  'cache_write_1h_input_tokens',
  'cache_read_input_tokens',
] as const satisfies readonly UsageClass[];

const tokenCount = z.int().nonnegative();

/**
 * Usage by class as stored and shown. The cache classes default to 0 so a record written before
 * they existed (only `input_tokens` and `output_tokens`) still decodes.
 */
export const usageByClassSchema = z.object({
  input_tokens: tokenCount.describe('Uncached input tokens (the API’s `input_tokens`: after the last cache breakpoint)'),
  cache_write_5m_input_tokens: tokenCount.default(0).describe('Input tokens written to the prompt cache with the 5-minute lifetime'),
  cache_write_1h_input_tokens: tokenCount.default(0).describe('Input tokens written to the prompt cache with the 1-hour lifetime'),
  cache_read_input_tokens: tokenCount.default(0).describe('Input tokens read from the prompt cache'),
  output_tokens: tokenCount.describe('Output tokens (thinking included)'),
});
export type UsageByClass = z.infer<typeof usageByClassSchema>;

export const EMPTY_USAGE: Readonly<UsageByClass> = Object.freeze({
  input_tokens: 0,
  cache_write_5m_input_tokens: 0,
  cache_write_1h_input_tokens: 0,
  cache_read_input_tokens: 0,
  output_tokens: 0,
});

/** The part of the SDK's `Usage` the classes come from (structural, so the domain needs no SDK). */
export interface ApiUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: { ephemeral_5m_input_tokens?: number | null; ephemeral_1h_input_tokens?: number | null } | null;
}

/** A count as the API reported it, or 0 when it is missing or not a count: an answer that was
 * paid for is never refused for its accounting, and a cost is never NaN. */
function count(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/**
 * Usage by class from the API's `usage`. Cache writes come from the `cache_creation` breakdown;
 * whatever `cache_creation_input_tokens` holds beyond it (an answer without the breakdown) is
 * counted at the 5-minute lifetime, the lifetime of a `cache_control` without `ttl` (docs
 * build-with-claude/prompt-caching, "1-hour cache duration"), so no written token goes unpriced.
 */
export function usageFromApi(usage: ApiUsage): UsageByClass {
  const oneHour = count(usage.cache_creation?.ephemeral_1h_input_tokens);
  const fiveMinutesReported = count(usage.cache_creation?.ephemeral_5m_input_tokens);
  const unexplained = Math.max(0, count(usage.cache_creation_input_tokens) - oneHour - fiveMinutesReported);
  return {
    input_tokens: count(usage.input_tokens),
    cache_write_5m_input_tokens: fiveMinutesReported + unexplained,
    cache_write_1h_input_tokens: oneHour,
    cache_read_input_tokens: count(usage.cache_read_input_tokens),
    output_tokens: count(usage.output_tokens),
  };
}

/** Every input token of the prompt(s): uncached, written and read. */
export function totalInputTokens(usage: UsageByClass): number {
  return INPUT_USAGE_CLASSES.reduce((sum, usageClass) => sum + usage[usageClass], 0);
}

/** Every token, in and out. */
export function totalTokens(usage: UsageByClass): number {
  return totalInputTokens(usage) + usage.output_tokens;
}

/** Cache reads over all input tokens (0..1); null before any input was counted. */
export function cacheHitRatio(usage: UsageByClass): number | null {
  const input = totalInputTokens(usage);
  return input === 0 ? null : usage.cache_read_input_tokens / input;
}

/** The sum of two usages, class by class. */
export function addUsage(left: UsageByClass, right: UsageByClass): UsageByClass {
  const sum = { ...EMPTY_USAGE };
  for (const usageClass of USAGE_CLASSES) sum[usageClass] = left[usageClass] + right[usageClass];
  return sum;
}
