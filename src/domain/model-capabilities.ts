// What each model the fleet knows can do: its default and largest max_tokens, its context window,
// and whether it accepts extended thinking with a budget (`thinking: {type: 'enabled',
// budget_tokens}`). The documented defaults below come from Anthropic's models overview
// (https://platform.claude.com/docs/en/about-claude/models/overview and the per-model pages under
// /docs/en/models/*/overview: "Context window", "Max output", "Extended thinking"); an operator
// merges corrections or new models over them with BUILDFLEET_MODEL_CAPABILITIES.
//
// Not listed: models that accept only adaptive thinking (Claude Opus 4.7 and later, the Claude 5
// families). The Messages API answers `thinking.type: "enabled"` on them with a 400 (docs
// build-with-claude/adaptive-thinking), and the fleet sends only that form, so they are refused as
// unknown rather than failing at their first thinking call. The simulator's catalog
// (src/sim/model-catalog.ts) records which thinking types each model takes;
// test/integration/capability-table-matches-simulator.test.ts keeps this table in step with it.
import { parseJsonSetting } from './parse-json-setting.js';
import { z } from 'zod';

export interface ModelCapabilities {
  /** max_tokens of a call when nothing raised it. */
  defaultMaxTokens: number;
  /** The model's largest output ("Max output"): max_tokens is never raised above it. */
  maxOutputTokens: number;
  contextWindowTokens: number;
  /** Accepts `thinking: {type: 'enabled', budget_tokens}`. */
  thinking: boolean;
  /** Thinking budget of runs that do not choose one; null = such runs do not think. */
  defaultThinkingBudgetTokens: number | null;
}

/** The API's smallest thinking budget (docs build-with-claude/extended-thinking: "The minimum
 * budget is 1,024 tokens"). */
export const MINIMUM_THINKING_BUDGET_TOKENS = 1024;

/** Budget of a run that turns thinking on without naming one, on a model without a default. */
export const FALLBACK_THINKING_BUDGET_TOKENS = 4096;

// A whole HTML page or stylesheet is several thousand output tokens; 16,384 leaves room for the
// largest file the builder writes in one call while staying under the SDK's 10-minute estimate for
// a single call (60 min × max_tokens / 128,000 — @anthropic-ai/sdk client.ts
// calculateNonstreamingTimeout).
const DEFAULT_MAX_TOKENS = 16_384;

const documented = (capabilities: Omit<ModelCapabilities, 'defaultMaxTokens' | 'defaultThinkingBudgetTokens'>): ModelCapabilities => ({
  defaultMaxTokens: Math.min(DEFAULT_MAX_TOKENS, capabilities.maxOutputTokens),
  defaultThinkingBudgetTokens: null,
  ...capabilities,
});

const opus46 = documented({ maxOutputTokens: 128_000, contextWindowTokens: 1_000_000, thinking: true });
const sonnet46 = documented({ maxOutputTokens: 64_000, contextWindowTokens: 1_000_000, thinking: true });
const haiku45 = documented({ maxOutputTokens: 64_000, contextWindowTokens: 200_000, thinking: true });
const opus45 = documented({ maxOutputTokens: 64_000, contextWindowTokens: 200_000, thinking: true });
const sonnet45 = documented({ maxOutputTokens: 64_000, contextWindowTokens: 200_000, thinking: true });
const opus41 = documented({ maxOutputTokens: 32_000, contextWindowTokens: 200_000, thinking: true });
const opus4 = documented({ maxOutputTokens: 32_000, contextWindowTokens: 200_000, thinking: true });
const sonnet4 = documented({ maxOutputTokens: 64_000, contextWindowTokens: 200_000, thinking: true });

/** Every model id and alias the fleet knows, as documented. */
export const DOCUMENTED_MODEL_CAPABILITIES: Readonly<Record<string, ModelCapabilities>> = Object.freeze({
  'claude-opus-4-6': opus46,
  'claude-sonnet-4-6': sonnet46,
  'claude-haiku-4-5': haiku45,
  'claude-haiku-4-5-20251001': haiku45,
  'claude-opus-4-5': opus45,
  'claude-opus-4-5-20251101': opus45,
  'claude-sonnet-4-5': sonnet45,
  'claude-sonnet-4-5-20250929': sonnet45,
  'claude-opus-4-1': opus41,
  'claude-opus-4-1-20250805': opus41,
  'claude-opus-4-0': opus4,
  'claude-opus-4-20250514': opus4,
  'claude-sonnet-4-0': sonnet4,
  'claude-sonnet-4-20250514': sonnet4,
});

/** What a model nobody described gets when BUILDFLEET_ALLOW_UNKNOWN_MODELS=true: limits every
 * current model accepts, and no thinking (the API would refuse it on a model without). */
export const UNKNOWN_MODEL_CAPABILITIES: ModelCapabilities = Object.freeze({
  defaultMaxTokens: 4096,
  maxOutputTokens: 8192,
  contextWindowTokens: 200_000,
  thinking: false,
  defaultThinkingBudgetTokens: null,
});

const tokenCount = z.int().positive().max(10_000_000);

/** One entry of BUILDFLEET_MODEL_CAPABILITIES: any subset of the fields, merged over the
 * documented entry (or, for a model not documented, over UNKNOWN_MODEL_CAPABILITIES). */
const capabilityOverride = z.strictObject({
  defaultMaxTokens: tokenCount.optional(),
  maxOutputTokens: tokenCount.optional(),
  contextWindowTokens: tokenCount.optional(),
  thinking: z.boolean().optional(),
  defaultThinkingBudgetTokens: tokenCount.min(MINIMUM_THINKING_BUDGET_TOKENS).nullable().optional(),
});
export type ModelCapabilityOverride = z.infer<typeof capabilityOverride>;

export const modelCapabilityOverridesSchema = z.record(z.string().min(1).max(200), capabilityOverride);
export type ModelCapabilityOverrides = z.infer<typeof modelCapabilityOverridesSchema>;

/** Problems with one merged entry, worded for the operator; empty when it is consistent. */
export function capabilityProblems(model: string, capabilities: ModelCapabilities): string[] {
  const problems: string[] = [];
  if (capabilities.defaultMaxTokens > capabilities.maxOutputTokens) {
    problems.push(`${model}: defaultMaxTokens ${capabilities.defaultMaxTokens} exceeds maxOutputTokens ${capabilities.maxOutputTokens}`);
  }
  const budget = capabilities.defaultThinkingBudgetTokens;
  if (budget !== null && !capabilities.thinking) problems.push(`${model}: defaultThinkingBudgetTokens is set but thinking is false`);
  if (budget !== null && budget >= capabilities.maxOutputTokens) {
    problems.push(`${model}: defaultThinkingBudgetTokens ${budget} must be below maxOutputTokens ${capabilities.maxOutputTokens}`);
  }
  return problems;
}

/** Parses BUILDFLEET_MODEL_CAPABILITIES (JSON: model id → partial capabilities). Throws an Error
 * whose message names every bad entry. */
export function parseModelCapabilityOverrides(text: string): ModelCapabilityOverrides {
  const data = parseJsonSetting(text, modelCapabilityOverridesSchema);
  if (data === null) return {};
  const problems = Object.entries(data).flatMap(([model, override]) => capabilityProblems(model, mergeCapabilities(model, override)));
  if (problems.length > 0) throw new Error(problems.join('; '));
  return data;
}

function mergeCapabilities(model: string, override: ModelCapabilityOverride | undefined): ModelCapabilities {
  const base = DOCUMENTED_MODEL_CAPABILITIES[model] ?? UNKNOWN_MODEL_CAPABILITIES;
  const merged: ModelCapabilities = { ...base };
  for (const [field, value] of Object.entries(override ?? {})) {
    if (value !== undefined) (merged as unknown as Record<string, unknown>)[field] = value;
  }
  // A lower maxOutputTokens alone must not leave the documented default above it.
  if (override?.defaultMaxTokens === undefined) merged.defaultMaxTokens = Math.min(merged.defaultMaxTokens, merged.maxOutputTokens);
  return merged;
}

export interface ModelLookup {
  /** False when neither the documented table nor the overrides name the model. */
  known: boolean;
  capabilities: ModelCapabilities;
}

/** The model's capabilities: documented, with the operator's overrides merged over them. */
export function lookupModelCapabilities({ model, overrides }: { model: string; overrides: ModelCapabilityOverrides }): ModelLookup {
  const known = Object.hasOwn(DOCUMENTED_MODEL_CAPABILITIES, model) || Object.hasOwn(overrides, model);
  return { known, capabilities: mergeCapabilities(model, overrides[model]) };
}

/** Every model the fleet knows with these overrides, for docs and `buildfleet` output. */
export function knownModelIds(overrides: ModelCapabilityOverrides): string[] {
  return [...new Set([...Object.keys(DOCUMENTED_MODEL_CAPABILITIES), ...Object.keys(overrides)])].sort();
}
