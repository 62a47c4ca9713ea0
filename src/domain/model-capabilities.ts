// What each model the fleet knows can do, as the turn protocol needs it: limits, thinking modes and
// display, effort, forced tool_choice, mid-conversation changes, strict tools, cache minimum,
// tokenizer and rate-limit class. Every documented fact comes from the one model catalog
// (model-catalog.ts, each fact cited there); an operator merges corrections or new models over it
// with BUILDFLEET_MODEL_CAPABILITIES. Where the provider's Models API describes a model (checked at
// boot and on a timer, src/model/models-api-check.ts) its limits, thinking types, effort levels,
// strict tools and lifecycle stand over the catalog's, and a model the catalog does not know yet
// runs on what that API says; the operator's overrides stand over both (docs/models.md).
// test/integration/capability-table-matches-simulator.test.ts holds this table to the simulator's
// own, independently written catalog (src/sim/model-catalog.ts), so a wrong entry fails a test.
import { parseJsonSetting } from './parse-json-setting.js';
import { z } from 'zod';
import { EFFORT_LEVELS, MODEL_RECORDS, type EffortLevel, type ModelLifecycle, type ModelRecord } from './model-catalog.js';
import { providerCapabilityFacts, providerLifecycle, type ProviderModelDescription } from './provider-model-description.js';

/** The catalog's facts the turn protocol reads, as model-catalog.ts documents each. */
const PROTOCOL_FACTS = [
  'maxOutputTokens',
  'contextWindowTokens',
  'adaptiveThinking',
  'thinksByDefault',
  'thinkingOff',
  'thinkingDisplays',
  'defaultThinkingDisplay',
  'progressUpdates',
  'effortLevels',
  'defaultEffort',
  'forcedToolChoice',
  'assistantPrefill',
  'midConversationSystemMessages',
  'midConversationToolChanges',
  'strictTools',
  'minimumCacheableTokens',
  'tokenizer',
  'rateLimitClass',
] as const satisfies ReadonlyArray<keyof ModelRecord>;

export type ModelCapabilities = Pick<ModelRecord, (typeof PROTOCOL_FACTS)[number]> & {
  /** max_tokens of a call when nothing raised it. */
  defaultMaxTokens: number;
  /** Accepts manual thinking, `thinking: {type: 'enabled', budget_tokens}` (the record's `manualThinking`). */
  thinking: boolean;
  /** Thinking budget of runs that do not choose one; null = such runs do not use a manual budget. */
  defaultThinkingBudgetTokens: number | null;
};

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

function capabilitiesOf(record: ModelRecord): ModelCapabilities {
  const facts = Object.fromEntries(PROTOCOL_FACTS.map((fact) => [fact, record[fact]])) as Pick<ModelRecord, (typeof PROTOCOL_FACTS)[number]>;
  return Object.freeze({
    ...facts,
    defaultMaxTokens: Math.min(DEFAULT_MAX_TOKENS, record.maxOutputTokens),
    thinking: record.manualThinking,
    defaultThinkingBudgetTokens: null,
  });
}

/** Every model id and alias the fleet knows, as documented (retired ones too: a submission naming
 * one is refused with its successor, resolve-run-model-settings.ts). */
export const DOCUMENTED_MODEL_CAPABILITIES: Readonly<Record<string, ModelCapabilities>> = Object.freeze(
  Object.fromEntries(
    MODEL_RECORDS.flatMap((record) => {
      const capabilities = capabilitiesOf(record);
      return [record.id, ...record.aliases].map((name) => [name, capabilities] as const);
    }),
  ),
);

const LIFECYCLE_OF: ReadonlyMap<string, ModelLifecycle> = new Map(
  MODEL_RECORDS.flatMap((record) => [record.id, ...record.aliases].map((name) => [name, record.lifecycle] as const)),
);

/** What a model nobody described gets when BUILDFLEET_ALLOW_UNKNOWN_MODELS=true: what every
 * current model accepts — no thinking, no forced tool_choice (the plan is asked for in words), no
 * mid-conversation changes — and the newer tokenizer, so estimates err high. */
export const UNKNOWN_MODEL_CAPABILITIES: ModelCapabilities = Object.freeze({
  defaultMaxTokens: 4096,
  maxOutputTokens: 8192,
  contextWindowTokens: 200_000,
  thinking: false,
  defaultThinkingBudgetTokens: null,
  adaptiveThinking: false,
  thinksByDefault: false,
  thinkingOff: 'omit',
  thinkingDisplays: [],
  defaultThinkingDisplay: null,
  progressUpdates: false,
  effortLevels: [],
  defaultEffort: null,
  forcedToolChoice: false,
  assistantPrefill: false,
  midConversationSystemMessages: false,
  midConversationToolChanges: false,
  strictTools: false,
  minimumCacheableTokens: 1024,
  tokenizer: 'newer',
  rateLimitClass: 'unknown',
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
  adaptiveThinking: z.boolean().optional(),
  thinksByDefault: z.boolean().optional(),
  thinkingOff: z.enum(['omit', 'disabled', 'disabled_at_effort_high_or_below', 'between_tools', 'impossible']).optional(),
  thinkingDisplays: z.array(z.enum(['summarized', 'omitted', 'updates'])).optional(),
  defaultThinkingDisplay: z.enum(['summarized', 'omitted']).nullable().optional(),
  progressUpdates: z.boolean().optional(),
  effortLevels: z.array(z.enum(EFFORT_LEVELS as [EffortLevel, ...EffortLevel[]])).optional(),
  defaultEffort: z
    .enum(EFFORT_LEVELS as [EffortLevel, ...EffortLevel[]])
    .nullable()
    .optional(),
  forcedToolChoice: z.boolean().optional(),
  assistantPrefill: z.boolean().optional(),
  midConversationSystemMessages: z.boolean().optional(),
  midConversationToolChanges: z.boolean().optional(),
  strictTools: z.boolean().optional(),
  minimumCacheableTokens: tokenCount.optional(),
  tokenizer: z.enum(['classic', 'newer']).optional(),
  rateLimitClass: z.string().min(1).max(100).optional(),
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
  if (capabilities.defaultEffort !== null && !capabilities.effortLevels.includes(capabilities.defaultEffort)) {
    problems.push(`${model}: defaultEffort ${capabilities.defaultEffort} is not one of its effortLevels (${capabilities.effortLevels.join(', ') || 'none'})`);
  }
  if (capabilities.defaultThinkingDisplay !== null && !capabilities.thinkingDisplays.includes(capabilities.defaultThinkingDisplay)) {
    problems.push(`${model}: defaultThinkingDisplay ${capabilities.defaultThinkingDisplay} is not one of its thinkingDisplays`);
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

/** The operator's entry merged over the base: the catalog's entry (or, for a model the catalog
 * does not know, UNKNOWN_MODEL_CAPABILITIES) with what the Models API describes over it. */
function mergeCapabilities(model: string, override: ModelCapabilityOverride | undefined, described?: ProviderModelDescription): ModelCapabilities {
  const documented = Object.hasOwn(DOCUMENTED_MODEL_CAPABILITIES, model) ? DOCUMENTED_MODEL_CAPABILITIES[model] : undefined;
  const base: ModelCapabilities = { ...(documented ?? UNKNOWN_MODEL_CAPABILITIES) };
  // The provider's word over the catalog's (src/model/models-api-check.ts logs where they differ).
  if (described) Object.assign(base, providerCapabilityFacts({ description: described, catalog: documented }));
  const merged: ModelCapabilities = { ...base };
  for (const [field, value] of Object.entries(override ?? {})) {
    if (value !== undefined) (merged as unknown as Record<string, unknown>)[field] = value;
  }
  // A lower maxOutputTokens alone must not leave the documented default above it.
  if (override?.defaultMaxTokens === undefined) merged.defaultMaxTokens = Math.min(merged.defaultMaxTokens, merged.maxOutputTokens);
  // A model the catalog does not know gets the usual default max_tokens once the API gives it room.
  if (!documented && described && override?.defaultMaxTokens === undefined) merged.defaultMaxTokens = Math.min(DEFAULT_MAX_TOKENS, merged.maxOutputTokens);
  return merged;
}

export interface ModelLookup {
  /** False when neither the catalog, the overrides nor the Models API describe the model. */
  known: boolean;
  capabilities: ModelCapabilities;
  /** The model's lifecycle: the catalog's, with the Models API's stage and retirement date over it;
   * null for a model only the operator describes. */
  lifecycle: ModelLifecycle | null;
}

/** The model's capabilities: the catalog's, with what the provider's Models API describes over
 * them (for a model the catalog does not know, the API's alone), and the operator's overrides
 * over both. */
export function lookupModelCapabilities({
  model,
  overrides,
  described,
}: {
  model: string;
  overrides: ModelCapabilityOverrides;
  /** The Models API's description of the model, when the last check read one (src/model/model-descriptions.ts). */
  described?: ProviderModelDescription | undefined;
}): ModelLookup {
  const known = Object.hasOwn(DOCUMENTED_MODEL_CAPABILITIES, model) || Object.hasOwn(overrides, model) || described !== undefined;
  const catalogLifecycle = LIFECYCLE_OF.get(model) ?? null;
  const lifecycle = described ? providerLifecycle({ description: described, catalog: catalogLifecycle }) : catalogLifecycle;
  return { known, capabilities: mergeCapabilities(model, overrides[model], described), lifecycle };
}

/** Every model a run may use with these overrides (retired ones left out), for docs and `buildfleet` output. */
export function knownModelIds(overrides: ModelCapabilityOverrides): string[] {
  const usable = Object.keys(DOCUMENTED_MODEL_CAPABILITIES).filter((model) => LIFECYCLE_OF.get(model)?.status !== 'retired');
  return [...new Set([...usable, ...Object.keys(overrides)])].sort();
}

/** The rate-limit class a model's calls count against (api/rate-limits: limits "are applied
 * separately for each model" class): the catalog's or the operator's, and for a model nobody gave
 * a class (one the catalog does not know) its own id, since nothing says it shares its limits. */
export function rateLimitClassOf({ model, overrides }: { model: string; overrides: ModelCapabilityOverrides }): string {
  const { rateLimitClass } = lookupModelCapabilities({ model, overrides }).capabilities;
  return rateLimitClass === UNKNOWN_MODEL_CAPABILITIES.rateLimitClass ? `model:${model}` : rateLimitClass;
}
