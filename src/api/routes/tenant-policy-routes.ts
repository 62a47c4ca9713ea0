// GET and PUT /v1/admin/tenants/:tenant/policy: an operator's view and setting of one tenant's
// policy (src/domain/tenant-policy.ts, docs/tenants.md): its overrides, and the policy in force once
// the fleet's defaults fill in what the overrides leave out. Admin only: a tenant never sets its own
// limits. `buildfleet keys policy` does the same from the command line.
import { z } from 'zod';
import { providerNames, providersTheFleetLacks } from '../../domain/provider-declarations.js';
import { TENANT_PATTERN } from '../../domain/tenant-id.js';
import { tenantPolicyOverridesSchema, tenantPolicySchema, type TenantPolicyOverrides } from '../../domain/tenant-policy.js';
import { modelsTheFleetRefuses } from '../../domain/tenant-run-limits.js';
import type { FleetContext } from '../../fleet/fleet-context.js';
import { policyInForce, tenantPolicyStore } from '../../fleet/tenant-account.js';
import { apiErrors } from '../api-errors.js';
import { defineRoute } from '../define-route.js';

const tenantParamsSchema = z.object({
  tenant: z
    .string()
    .regex(TENANT_PATTERN, 'must be 1-64 letters, digits, _ and -, starting with a letter or digit')
    .describe('The tenant, as its API keys name it'),
});

export const tenantPolicyViewSchema = z
  .object({
    tenant: z.string(),
    overrides: tenantPolicyOverridesSchema.describe('What is set for this tenant; every field left out takes the fleet’s default'),
    policy: tenantPolicySchema,
  })
  .describe('A tenant’s policy: its overrides and the policy in force');
type TenantPolicyView = z.infer<typeof tenantPolicyViewSchema>;

function view(fleet: FleetContext, tenant: string, overrides: TenantPolicyOverrides): TenantPolicyView {
  return { tenant, overrides, policy: policyInForce(fleet, overrides) };
}

const FIELDS_DESCRIPTION =
  'Fields (every amount 0 = none; a field left out takes the fleet’s default): `defaultRunBudgetUsd` ' +
  '/ `maxRunBudgetUsd` (a run’s USD budget when it names none / the most it may ask for; fleet: ' +
  '`BUILDFLEET_RUN_BUDGET_USD`, `BUILDFLEET_RUN_BUDGET_USD_MAX`), `defaultRunTokenBudget` / ' +
  '`maxRunTokenBudget` (the same in tokens; fleet: `BUILDFLEET_TOKEN_BUDGET`, ' +
  '`BUILDFLEET_TOKEN_BUDGET_MAX`), `dailySpendLimitUsd` / `monthlySpendLimitUsd` (what the tenant’s ' +
  'runs may spend per UTC day / month before new runs are refused; fleet: ' +
  '`BUILDFLEET_TENANT_DAILY_SPEND_USD`, `BUILDFLEET_TENANT_MONTHLY_SPEND_USD`), `maxTurns` (1–200: ' +
  'the turns of a run that names none and the most it may ask for, `max_turns_above_tenant_maximum` ' +
  'above it; fleet: `BUILDFLEET_MAX_TURNS`), `maxConcurrentRuns` (runs not yet ended before ' +
  '`too_many_active_runs`; fleet: `BUILDFLEET_MAX_CONCURRENT_RUNS`), `allowedModels` (a list of ' +
  'model ids, each known to the fleet; a run naming another is refused `model_not_allowed`; left ' +
  'out: every model the fleet accepts), `allowedProviders` (a list of model provider names, each ' +
  'one the fleet has: `anthropic` and the names `BUILDFLEET_PROVIDERS` declares, docs/providers.md; ' +
  'a run naming another is refused `provider_not_allowed`, a run naming none gets ' +
  '`BUILDFLEET_PROVIDER` when listed, else the first listed; left out: every provider the fleet ' +
  'has), `defaultEffort` (low, medium, high, xhigh or max: the `thinking.effort` of a run that names ' +
  'none, applied where its model takes that level, else the model’s own default; left ' +
  'out: the model’s default, docs/models.md). A default above its maximum is lowered to it.';

export function getTenantPolicyRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'GET',
    url: '/v1/admin/tenants/:tenant/policy',
    operationId: 'getTenantPolicy',
    summary: 'A tenant’s policy',
    description:
      `The tenant’s overrides and the policy in force (its overrides over the fleet’s defaults). ` +
      `${FIELDS_DESCRIPTION} A tenant with no overrides shows the fleet’s defaults. Needs the \`admin\` scope.`,
    tags: ['admin'],
    access: 'admin',
    params: tenantParamsSchema,
    responses: { 200: { description: 'The tenant’s policy', schema: tenantPolicyViewSchema } },
    errors: ['invalid_params'],
    async handler(request): Promise<TenantPolicyView> {
      const { tenant } = request.params;
      return view(fleet, tenant, await tenantPolicyStore(fleet).get(tenant));
    },
  });
}

export function putTenantPolicyRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'PUT',
    url: '/v1/admin/tenants/:tenant/policy',
    operationId: 'putTenantPolicy',
    summary: 'Set a tenant’s policy',
    description:
      `Replaces the tenant’s overrides with the body (\`{}\` removes them all: the tenant follows ` +
      `the fleet’s defaults). ${FIELDS_DESCRIPTION} Unknown fields, amounts out of range, a default ` +
      `above its maximum and an allowed model the fleet does not know are refused (400 \`invalid_body\`); ` +
      `an allowed provider the fleet does not have is refused with 400 \`unknown_provider\`, the ` +
      `message listing the providers it has (the API knows them all: it checks every run’s \`provider\` ` +
      `against the same \`BUILDFLEET_PROVIDERS\`). New limits apply to runs created from then on; a ` +
      `run keeps the budgets, turns and model it was created with. Needs the \`admin\` scope.`,
    tags: ['admin'],
    access: 'admin',
    params: tenantParamsSchema,
    body: tenantPolicyOverridesSchema,
    responses: { 200: { description: 'The tenant’s policy as stored', schema: tenantPolicyViewSchema } },
    errors: ['invalid_params', 'invalid_body', 'unknown_provider', 'unsupported_media_type', 'body_too_large'],
    async handler(request): Promise<TenantPolicyView> {
      const { tenant } = request.params;
      const refused = modelsTheFleetRefuses({ models: request.body.allowedModels ?? [], config: fleet.config });
      if (refused.length > 0) {
        throw apiErrors.invalidBody(
          `body.allowedModels: ${refused.map((model) => JSON.stringify(model)).join(', ')} ` +
            `${refused.length > 1 ? 'are' : 'is'} not in the fleet's capability table ` +
            `(docs/models.md); runs could never use ${refused.length > 1 ? 'them' : 'it'}.`,
        );
      }
      // The API process checks every run's `provider` against its own BUILDFLEET_PROVIDERS (the fleet
      // shares one configuration), so a name it does not have could never be used: a run naming it
      // is refused, and a run naming none, given it as the first allowed, would end
      // provider_not_configured on a worker.
      const lacking = providersTheFleetLacks({ providers: request.body.allowedProviders ?? [], declarations: fleet.config.BUILDFLEET_PROVIDERS });
      if (lacking.length > 0) {
        throw apiErrors.unknownProvider(
          `body.allowedProviders: ${lacking.map((provider) => JSON.stringify(provider)).join(', ')} ` +
            `${lacking.length > 1 ? 'are' : 'is'} no provider the fleet has. Providers: ` +
            `${providerNames(fleet.config.BUILDFLEET_PROVIDERS).join(', ')}.`,
        );
      }
      const stored = await tenantPolicyStore(fleet).put(tenant, request.body);
      request.log.warn({ event: 'tenant-policy-set', tenant, overrides: stored }, 'tenant policy set by an operator');
      return view(fleet, tenant, stored);
    },
  });
}
