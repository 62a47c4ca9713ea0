// A run's model settings, decided once when it is submitted: which model, the max_tokens its first
// call sends, how far a truncation may raise that, and its thinking budget. The API, the CLI and
// the boot check of BUILDFLEET_MODEL share this one function, so a run that is accepted is one the
// Messages API will accept too.
import {
  FALLBACK_THINKING_BUDGET_TOKENS,
  knownModelIds,
  lookupModelCapabilities,
  type ModelCapabilities,
  type ModelCapabilityOverrides,
} from './model-capabilities.js';
import type { ProviderModelDescription } from './provider-model-description.js';

/** The configuration this needs (a structural slice of Config, so config.ts can call it). */
export interface ModelSettingsConfig {
  BUILDFLEET_MODEL: string;
  BUILDFLEET_MODEL_CAPABILITIES: ModelCapabilityOverrides;
  BUILDFLEET_ALLOW_UNKNOWN_MODELS: boolean;
  BUILDFLEET_MAX_TOKENS?: number | undefined;
  BUILDFLEET_MAX_TOKENS_CEILING?: number | undefined;
}

/** What a submitter may ask for: thinking on with a budget, on with the default budget, or off. */
export interface ThinkingRequest {
  enabled?: boolean | undefined;
  budgetTokens?: number | undefined;
}

export interface RunModelSettings {
  model: string;
  capabilities: ModelCapabilities;
  known: boolean;
  maxTokens: number;
  /** The largest max_tokens a truncation may raise the run to. */
  maxTokensCeiling: number;
  /** null = the run does not think. */
  thinkingBudgetTokens: number | null;
  /** The model is deprecated: runs go on, with this warning (event, log, metric) naming the date. */
  deprecation: ModelDeprecation | null;
}

export interface ModelDeprecation {
  model: string;
  retiresOn: string | null;
  successor: string | null;
  message: string;
}

export type RunModelSettingsErrorCode = 'unknown_model' | 'model_retired' | 'thinking_not_supported' | 'thinking_budget_too_large';

/** A submission the fleet refuses; `code` is the API error code it answers with. */
export class RunModelSettingsError extends Error {
  constructor(
    readonly code: RunModelSettingsErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'RunModelSettingsError';
  }
}

/** Decides the run's model settings or throws RunModelSettingsError. */
export function resolveRunModelSettings({
  config,
  model: requestedModel,
  thinking,
  describe,
}: {
  config: ModelSettingsConfig;
  model?: string | undefined;
  thinking?: ThinkingRequest | undefined;
  /** What the provider's Models API last said of a model (src/model/model-descriptions.ts). */
  describe?: ((model: string) => ProviderModelDescription | undefined) | undefined;
}): RunModelSettings {
  const model = requestedModel ?? config.BUILDFLEET_MODEL;
  const { known, capabilities, lifecycle } = lookupModelCapabilities({ model, overrides: config.BUILDFLEET_MODEL_CAPABILITIES, described: describe?.(model) });
  // A retired model's requests fail (about-claude/model-deprecations): refused here, naming its
  // successor, whether the catalog or the Models API says so, unless the operator describes the
  // model themselves (a provider that still serves it).
  if (lifecycle?.status === 'retired' && !Object.hasOwn(config.BUILDFLEET_MODEL_CAPABILITIES, model)) {
    throw new RunModelSettingsError(
      'model_retired',
      `Model "${model}" was retired on ${lifecycle.retiresOn ?? 'an earlier date'}: requests to it fail. Use ${lifecycle.successor ?? 'a current model'} instead.`,
    );
  }
  const deprecation: ModelDeprecation | null =
    lifecycle?.status === 'deprecated'
      ? {
          model,
          retiresOn: lifecycle.retiresOn,
          successor: lifecycle.successor,
          message: `Model "${model}" is deprecated${lifecycle.retiresOn ? ` and retires on ${lifecycle.retiresOn}` : ''}${lifecycle.successor ? `; move to ${lifecycle.successor}` : ''}.`,
        }
      : null;
  if (!known && !config.BUILDFLEET_ALLOW_UNKNOWN_MODELS) {
    throw new RunModelSettingsError(
      'unknown_model',
      `Unknown model "${model}". Known models: ${knownModelIds(config.BUILDFLEET_MODEL_CAPABILITIES).join(', ')}. ` +
        'An operator can describe it in BUILDFLEET_MODEL_CAPABILITIES or set BUILDFLEET_ALLOW_UNKNOWN_MODELS=true.',
    );
  }
  const maxTokensCeiling = Math.min(capabilities.maxOutputTokens, config.BUILDFLEET_MAX_TOKENS_CEILING ?? Number.POSITIVE_INFINITY);
  const baseMaxTokens = Math.min(config.BUILDFLEET_MAX_TOKENS ?? capabilities.defaultMaxTokens, maxTokensCeiling);

  const wantsThinking = thinking ? thinking.enabled !== false : capabilities.defaultThinkingBudgetTokens !== null;
  if (!wantsThinking) return { model, capabilities, known, maxTokens: baseMaxTokens, maxTokensCeiling, thinkingBudgetTokens: null, deprecation };
  if (!capabilities.thinking) {
    throw new RunModelSettingsError('thinking_not_supported', `Model "${model}" does not support extended thinking.`);
  }
  const budget = thinking?.budgetTokens ?? capabilities.defaultThinkingBudgetTokens ?? FALLBACK_THINKING_BUDGET_TOKENS;
  // budget_tokens must be below max_tokens (docs build-with-claude/extended-thinking), and
  // max_tokens can go no higher than the ceiling.
  if (budget >= maxTokensCeiling) {
    throw new RunModelSettingsError(
      'thinking_budget_too_large',
      `A thinking budget of ${budget} tokens does not fit: max_tokens must exceed it, and ${model} allows at most ${maxTokensCeiling}.`,
    );
  }
  // Thinking counts against max_tokens, so the answer keeps the room it has without thinking.
  const maxTokens = Math.min(maxTokensCeiling, budget + baseMaxTokens);
  return { model, capabilities, known, maxTokens, maxTokensCeiling, thinkingBudgetTokens: budget, deprecation };
}
