// The run limits of a tenant's policy applied to a new run: how many turns it may take, which model
// it may use, and the experiment-only options only an admin key may set. Pure, so the API
// (src/api/limits/admit-run-limits.ts) and the tests share one rule; the API maps each refusal to
// its error code. docs/tenants.md documents the rules.
import { lookupModelCapabilities, type ModelCapabilityOverrides } from './model-capabilities.js';
import type { TenantPolicy } from './tenant-policy.js';
import { IMPLICIT_PROVIDER } from './provider-declarations.js';

/** Run options that exist for the fleet's own experiments (the tiers experiment compares tool
 * layouts and text recovery on and off): they change how a run is driven, not what it builds, so
 * only a key with the `admin` scope may set them. `scenario` is not among them: it only bends the
 * run's own simulated turns and is ignored by the real API. */
export const ADMIN_ONLY_RUN_OPTIONS = ['toolLayout', 'textRecovery'] as const;
export type AdminOnlyRunOption = (typeof ADMIN_ONLY_RUN_OPTIONS)[number];

/** What a new run asks for that the policy limits. */
export interface RequestedRunLimits {
  maxTurns?: number | undefined;
  model?: string | undefined;
  provider?: string | undefined;
  options?: Partial<Record<AdminOnlyRunOption, unknown>> | undefined;
}

export type RunLimitsRefusal =
  | { code: 'run_option_requires_admin'; options: AdminOnlyRunOption[] }
  | { code: 'max_turns_above_tenant_maximum'; requested: number; maximum: number }
  | { code: 'model_not_allowed'; requested: string; allowed: readonly string[] }
  | { code: 'provider_not_allowed'; requested: string; allowed: readonly string[] };

export type RunLimitsResolution =
  /** `model` undefined: the fleet's default model (BUILDFLEET_MODEL). */
  { kind: 'limits'; maxTurns: number; model: string | undefined; provider: string } | { kind: 'refused'; refusal: RunLimitsRefusal };

/**
 * A new run's turns and model under its tenant's policy, or the refusal. The experiment-only
 * options and a `maxTurns` above the policy's are refused unless `isAdmin` (an operator's run, as
 * with budgets above the maximum); the allowed models bind every key of the tenant, like its spend
 * limits. A run naming no model gets the fleet's default when the tenant may use it, else the first
 * model of its list; a run naming no `maxTurns` gets the policy's.
 */
export function resolveRunLimits({
  policy,
  requested,
  fleetModel,
  fleetProvider = IMPLICIT_PROVIDER,
  isAdmin,
}: {
  policy: Pick<TenantPolicy, 'maxTurns' | 'allowedModels'> & Partial<Pick<TenantPolicy, 'allowedProviders'>>;
  requested: RequestedRunLimits;
  fleetModel: string;
  /** BUILDFLEET_PROVIDER: the provider of a run that names none (default `anthropic`). */
  fleetProvider?: string;
  isAdmin: boolean;
}): RunLimitsResolution {
  if (!isAdmin) {
    const options = ADMIN_ONLY_RUN_OPTIONS.filter((option) => requested.options?.[option] !== undefined);
    if (options.length > 0) return { kind: 'refused', refusal: { code: 'run_option_requires_admin', options } };
    if (requested.maxTurns !== undefined && requested.maxTurns > policy.maxTurns) {
      return { kind: 'refused', refusal: { code: 'max_turns_above_tenant_maximum', requested: requested.maxTurns, maximum: policy.maxTurns } };
    }
  }
  const allowed = policy.allowedModels;
  if (requested.model !== undefined && allowed !== null && !allowed.includes(requested.model)) {
    return { kind: 'refused', refusal: { code: 'model_not_allowed', requested: requested.model, allowed } };
  }
  const model = requested.model ?? (allowed === null || allowed.includes(fleetModel) ? undefined : allowed[0]);
  // Providers follow the models' rule: the allow-list binds every key; a run naming none gets the
  // fleet's default when allowed, else the first listed.
  const providers = policy.allowedProviders ?? null;
  if (requested.provider !== undefined && providers !== null && !providers.includes(requested.provider)) {
    return { kind: 'refused', refusal: { code: 'provider_not_allowed', requested: requested.provider, allowed: providers } };
  }
  const provider = requested.provider ?? (providers === null || providers.includes(fleetProvider) ? fleetProvider : providers[0]!);
  return { kind: 'limits', maxTurns: requested.maxTurns ?? policy.maxTurns, model, provider };
}

/** The models of an allow-list the fleet itself would refuse (not in its capability table, while
 * unknown models are not allowed): a policy naming them would only turn into `unknown_model`
 * refusals later, so setting it is refused instead. */
export function modelsTheFleetRefuses({
  models,
  config,
}: {
  models: readonly string[];
  config: { BUILDFLEET_MODEL_CAPABILITIES: ModelCapabilityOverrides; BUILDFLEET_ALLOW_UNKNOWN_MODELS: boolean };
}): string[] {
  if (config.BUILDFLEET_ALLOW_UNKNOWN_MODELS) return [];
  return models.filter((model) => !lookupModelCapabilities({ model, overrides: config.BUILDFLEET_MODEL_CAPABILITIES }).known);
}
