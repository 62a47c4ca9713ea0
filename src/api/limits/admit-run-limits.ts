// The run limits of a tenant's policy at POST /v1/runs (the rule: src/domain/tenant-run-limits.ts):
// experiment-only options need an admin key (403 run_option_requires_admin), `maxTurns` above the
// policy's is refused, not clamped (400 max_turns_above_tenant_maximum), a model outside the
// tenant's allow-list is refused (403 model_not_allowed). docs/tenants.md has the rules.
import { hasScope } from '../../auth/api-key-scopes.js';
import { assertNever } from '../../domain/assert-never.js';
import type { TenantPolicy } from '../../domain/tenant-policy.js';
import { resolveRunLimits, type RequestedRunLimits } from '../../domain/tenant-run-limits.js';
import { apiErrors } from '../api-errors.js';
import type { RequestAuth } from '../request-auth.js';

/** The run's turns and model under the tenant's policy, or throws the refusal's ApiError. */
export function admitRunLimits({
  policy,
  auth,
  requested,
  fleetModel,
  fleetProvider,
}: {
  policy: TenantPolicy;
  auth: RequestAuth;
  requested: RequestedRunLimits;
  fleetModel: string;
  fleetProvider: string;
}): { maxTurns: number; model: string | undefined; provider: string } {
  const resolution = resolveRunLimits({ policy, requested, fleetModel, fleetProvider, isAdmin: hasScope({ scopes: auth.scopes, required: 'admin' }) });
  if (resolution.kind === 'limits') return { maxTurns: resolution.maxTurns, model: resolution.model, provider: resolution.provider };
  const refusal = resolution.refusal;
  switch (refusal.code) {
    case 'run_option_requires_admin':
      throw apiErrors.runOptionRequiresAdmin(
        `${refusal.options.map((option) => `options.${option}`).join(' and ')} ` +
          `${refusal.options.length > 1 ? 'are' : 'is'} for the fleet's experiments and needs ` +
          `an API key with the admin scope. Leave ${refusal.options.length > 1 ? 'them' : 'it'} out.`,
      );
    case 'max_turns_above_tenant_maximum':
      throw apiErrors.maxTurnsAboveTenantMaximum(
        `maxTurns asks for ${refusal.requested} turns; this tenant's runs may take at most ` +
          `${refusal.maximum}. Ask for at most ${refusal.maximum}, or leave it out for ${refusal.maximum}.`,
      );
    case 'model_not_allowed':
      throw apiErrors.modelNotAllowed(
        // The requested id is the caller's own input, quoted as JSON so it reads as data.
        `This tenant may not use the model ${JSON.stringify(refusal.requested)}. Models it may use: ${refusal.allowed.join(', ')}.`,
      );
    case 'provider_not_allowed':
      throw apiErrors.providerNotAllowed(
        `This tenant may not use the provider ${JSON.stringify(refusal.requested)}. Providers it may use: ${refusal.allowed.join(', ')}.`,
      );
    default:
      return assertNever(refusal);
  }
}
