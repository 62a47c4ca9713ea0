// A run's model settings, decided once when it is submitted: which model, the max_tokens its first
// call sends, how far a truncation may raise that, and how it thinks (off, a manual budget,
// adaptive, or between tool calls only), at which effort, with which display. The API, the CLI and
// the boot check of BUILDFLEET_MODEL share this one function, so a run that is accepted is one the
// Messages API will accept too. Every rule reads the model's capabilities (model-capabilities.ts),
// never its id.
import type { EffortLevel, ThinkingDisplay } from './model-catalog.js';
import { assertNever } from './assert-never.js';
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

/** What a submitter may ask for: thinking on (with a manual budget, or adaptive where the model
 * has it), off, and the effort of the run's calls. */
export interface ThinkingRequest {
  enabled?: boolean | undefined;
  budgetTokens?: number | undefined;
  effort?: EffortLevel | undefined;
}

/** How a run thinks, decided once at submit (docs/models.md, "Thinking, effort and display"):
 * - `off`: it does not think (the request omits `thinking`, or sends `disabled` on a model that
 *   thinks by default);
 * - `manual`: `{type: 'enabled', budget_tokens}`;
 * - `adaptive`: `{type: 'adaptive'}`, the model decides how much, effort sets the depth;
 * - `between_tools`: no up-front thinking, progress updates between tool calls only (the lowest
 *   setting of a model whose thinkingOff is `between_tools`). */
export type RunThinkingMode = 'off' | 'manual' | 'adaptive' | 'between_tools';
export const RUN_THINKING_MODES: readonly RunThinkingMode[] = ['off', 'manual', 'adaptive', 'between_tools'];

/** The thinking settings a run keeps for life (its record, run-create event and history). */
export interface RunThinkingSettings {
  thinking: RunThinkingMode;
  /** The manual budget; null unless `thinking` is `manual`. */
  thinkingBudgetTokens: number | null;
  /** `output_config.effort` of every call; null = not sent (the model's default applies). */
  effort: EffortLevel | null;
  /** The display the fleet asks for (`updates`) or gets by default; null when the run does not
   * think up front (off, between_tools). */
  thinkingDisplay: ThinkingDisplay | null;
}

export interface RunModelSettings {
  model: string;
  capabilities: ModelCapabilities;
  known: boolean;
  maxTokens: number;
  /** The largest max_tokens a truncation may raise the run to. */
  maxTokensCeiling: number;
  thinking: RunThinkingMode;
  /** null = the run does not think with a manual budget. */
  thinkingBudgetTokens: number | null;
  effort: EffortLevel | null;
  thinkingDisplay: ThinkingDisplay | null;
  /** The model is deprecated: runs go on, with this warning (event, log, metric) naming the date. */
  deprecation: ModelDeprecation | null;
}

export interface ModelDeprecation {
  model: string;
  retiresOn: string | null;
  successor: string | null;
  message: string;
}

export type RunModelSettingsErrorCode =
  | 'unknown_model'
  | 'model_retired'
  | 'thinking_not_supported'
  | 'thinking_budget_too_large'
  | 'thinking_budget_not_supported'
  | 'thinking_always_on'
  | 'effort_not_supported'
  | 'effort_requires_thinking';

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

/** Decides the run's model settings or throws RunModelSettingsError. `tenantDefaultEffort` (the
 * tenant policy's `defaultEffort`) applies when the run names no effort and the model accepts it. */
export function resolveRunModelSettings({
  config,
  model: requestedModel,
  thinking,
  describe,
  tenantDefaultEffort = null,
}: {
  config: ModelSettingsConfig;
  model?: string | undefined;
  thinking?: ThinkingRequest | undefined;
  /** What the provider's Models API last said of a model (src/model/model-descriptions.ts). */
  describe?: ((model: string) => ProviderModelDescription | undefined) | undefined;
  tenantDefaultEffort?: EffortLevel | null | undefined;
}): RunModelSettings {
  const model = requestedModel ?? config.BUILDFLEET_MODEL;
  const { known, capabilities, lifecycle } = lookupModelCapabilities({ model, overrides: config.BUILDFLEET_MODEL_CAPABILITIES, described: describe?.(model) });
  // A retired model's requests fail (about-claude/model-deprecations): refused here, naming its
  // successor, whether the catalog or the Models API says so, unless the operator describes the
  // model themselves (a provider that still serves it).
  if (lifecycle?.status === 'retired' && !Object.hasOwn(config.BUILDFLEET_MODEL_CAPABILITIES, model)) {
    throw new RunModelSettingsError(
      'model_retired',
      `Model "${model}" was retired on ${lifecycle.retiresOn ?? 'an earlier date'}: ` +
        `requests to it fail. Use ${lifecycle.successor ?? 'a current model'} instead.`,
    );
  }
  const deprecation: ModelDeprecation | null =
    lifecycle?.status === 'deprecated'
      ? {
          model,
          retiresOn: lifecycle.retiresOn,
          successor: lifecycle.successor,
          message:
            `Model "${model}" is deprecated${lifecycle.retiresOn ? ` and retires on ${lifecycle.retiresOn}` : ''}` +
            `${lifecycle.successor ? `; move to ${lifecycle.successor}` : ''}.`,
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
  const settings = decideRunThinking({ model, capabilities, thinking, tenantDefaultEffort });
  const common = { model, capabilities, known, maxTokensCeiling, deprecation, ...settings };
  const budget = settings.thinkingBudgetTokens;
  if (budget === null) return { ...common, maxTokens: baseMaxTokens };
  // budget_tokens must be below max_tokens (docs build-with-claude/extended-thinking), and
  // max_tokens can go no higher than the ceiling.
  if (budget >= maxTokensCeiling) {
    throw new RunModelSettingsError(
      'thinking_budget_too_large',
      `A thinking budget of ${budget} tokens does not fit: max_tokens must exceed it, and ${model} allows at most ${maxTokensCeiling}.`,
    );
  }
  // Thinking counts against max_tokens, so the answer keeps the room it has without thinking.
  return { ...common, maxTokens: Math.min(maxTokensCeiling, budget + baseMaxTokens) };
}

const EFFORTS_ABOVE_HIGH: ReadonlySet<EffortLevel> = new Set(['xhigh', 'max']);

/** The run's thinking mode, effort and display from what it asked for and what the model allows. */
export function decideRunThinking({
  model,
  capabilities,
  thinking,
  tenantDefaultEffort = null,
}: {
  model: string;
  capabilities: ModelCapabilities;
  thinking?: ThinkingRequest | undefined;
  tenantDefaultEffort?: EffortLevel | null | undefined;
}): RunThinkingSettings {
  // Effort: the run's, refused where the model does not take it; else the tenant's default where
  // the model takes it (and, on a model that does not think unless asked and refuses an effort
  // above high without thinking, where the run thinks); else not sent (the model's own default).
  const requestedEffort = thinking?.effort;
  if (requestedEffort !== undefined && !capabilities.effortLevels.includes(requestedEffort)) {
    throw new RunModelSettingsError(
      'effort_not_supported',
      capabilities.effortLevels.length === 0
        ? `Model "${model}" does not take an effort level; leave thinking.effort out.`
        : `Model "${model}" does not take effort "${requestedEffort}". Its levels: ${capabilities.effortLevels.join(', ')}.`,
    );
  }
  const tenantEffort = tenantDefaultEffort !== null && capabilities.effortLevels.includes(tenantDefaultEffort) ? tenantDefaultEffort : null;
  const effort = requestedEffort ?? tenantEffort;
  // Whether an effort above high is in force, sent or by the model's default.
  const effortAboveHigh = EFFORTS_ABOVE_HIGH.has(effort ?? capabilities.defaultEffort ?? 'high');
  const thinkingDisplay = upFrontDisplay(capabilities);
  const adaptive: RunThinkingSettings = { thinking: 'adaptive', thinkingBudgetTokens: null, effort, thinkingDisplay };
  const manual = (budget: number): RunThinkingSettings => ({ thinking: 'manual', thinkingBudgetTokens: budget, effort, thinkingDisplay });

  if (thinking?.enabled === false) {
    const off: RunThinkingSettings = { thinking: 'off', thinkingBudgetTokens: null, effort, thinkingDisplay: null };
    switch (capabilities.thinkingOff) {
      case 'omit':
      case 'disabled':
        return off;
      case 'disabled_at_effort_high_or_below':
      case 'between_tools':
        if (effortAboveHigh) {
          throw new RunModelSettingsError(
            'effort_requires_thinking',
            `Model "${model}" turns thinking off only at effort high or below; choose a lower effort or leave thinking on.`,
          );
        }
        return capabilities.thinkingOff === 'between_tools' ? { ...off, thinking: 'between_tools' } : off;
      case 'impossible':
        throw new RunModelSettingsError(
          'thinking_always_on',
          `Model "${model}" always thinks: thinking cannot be turned off. Leave thinking.enabled out and lower thinking.effort to make it think less.`,
        );
      default:
        return assertNever(capabilities.thinkingOff);
    }
  }
  if (thinking?.budgetTokens !== undefined) {
    if (capabilities.thinking) return manual(thinking.budgetTokens);
    if (capabilities.adaptiveThinking) {
      throw new RunModelSettingsError(
        'thinking_budget_not_supported',
        `Model "${model}" takes no thinking budget: it thinks adaptively. Leave thinking.budgetTokens ` +
          `out and set thinking.effort (${capabilities.effortLevels.join(', ')}) instead.`,
      );
    }
    throw new RunModelSettingsError('thinking_not_supported', `Model "${model}" does not support extended thinking.`);
  }
  if (thinking?.enabled === true) {
    if (capabilities.adaptiveThinking) return adaptive;
    if (capabilities.thinking) return manual(capabilities.defaultThinkingBudgetTokens ?? FALLBACK_THINKING_BUDGET_TOKENS);
    throw new RunModelSettingsError('thinking_not_supported', `Model "${model}" does not support extended thinking.`);
  }
  // Nothing asked: the model's own behaviour — it thinks by default (adaptively), or an operator's
  // default budget applies, or it does not think.
  if (capabilities.thinksByDefault && capabilities.adaptiveThinking) return adaptive;
  if (capabilities.defaultThinkingBudgetTokens !== null && capabilities.thinking) return manual(capabilities.defaultThinkingBudgetTokens);
  if (capabilities.thinkingOff === 'disabled_at_effort_high_or_below' && effortAboveHigh) {
    // Opus 4.8 without thinking refuses xhigh and max: the tenant's default is left out, the run's own refused.
    if (requestedEffort === undefined) return { thinking: 'off', thinkingBudgetTokens: null, effort: null, thinkingDisplay: null };
    throw new RunModelSettingsError(
      'effort_requires_thinking',
      `Model "${model}" takes effort ${requestedEffort} only while it thinks; set thinking.enabled: true or a lower effort.`,
    );
  }
  return { thinking: 'off', thinkingBudgetTokens: null, effort, thinkingDisplay: null };
}

/** The display of a run that thinks up front: `updates` where the model offers it (its reasoning
 * stays hidden and its text between tool calls comes back readable), else the model's default. */
function upFrontDisplay(capabilities: ModelCapabilities): ThinkingDisplay | null {
  if (capabilities.progressUpdates && capabilities.thinkingDisplays.includes('updates')) return 'updates';
  return capabilities.defaultThinkingDisplay;
}
