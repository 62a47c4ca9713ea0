// GET /v1/spend: what a tenant's runs spent this UTC day and month, its limits and what remains —
// the caller's own tenant, or with `?tenant=` any tenant for an admin key.
import { z } from 'zod';
import { TENANT_PATTERN } from '../../domain/tenant-id.js';
import { tenantPolicySchema } from '../../domain/tenant-policy.js';
import type { SpendPeriodStanding } from '../../domain/tenant-spend-standing.js';
import { microUsdToUsd } from '../../domain/usage-cost.js';
import { usageByClassSchema } from '../../domain/usage.js';
import type { TenantSpendPeriod } from '../../engine/index.js';
import type { FleetContext } from '../../fleet/fleet-context.js';
import { readTenantAccount } from '../../fleet/tenant-account.js';
import { defineRoute } from '../define-route.js';
import { authOf, requireTenantReadable } from '../tenant-of.js';

const spendQuerySchema = z.object({
  tenant: z
    .string()
    .regex(TENANT_PATTERN, 'must be 1-64 letters, digits, _ and -, starting with a letter or digit')
    .optional()
    .describe('Another tenant than the caller’s (admin keys only); default: the caller’s'),
});

const periodSchema = (name: string) =>
  z
    .object({
      period: z.string().describe(name === 'day' ? 'The UTC day, `YYYY-MM-DD`' : 'The UTC month, `YYYY-MM`'),
      spentUsd: z.number().min(0).describe(`What the tenant’s model calls cost this ${name}`),
      limitUsd: z
        .number()
        .nullable()
        .describe(`The tenant’s ${name === 'day' ? 'daily' : 'monthly'} spend limit; null = none`),
      remainingUsd: z.number().min(0).nullable().describe('What may still be spent (never below 0); null without a limit'),
      limitReached: z.boolean().describe('New runs are refused (`tenant_spend_limit_reached`) until `resetsAt`'),
      resetsAt: z.string().describe(`When the next UTC ${name} starts and its spend starts again from 0`),
      usage: usageByClassSchema.describe(`Tokens the tenant’s model calls used this ${name}, by class`),
    })
    .describe(`The tenant’s spend this UTC ${name}`);

export const tenantSpendViewSchema = z
  .object({
    tenant: z.string(),
    day: periodSchema('day'),
    month: periodSchema('month'),
    policy: tenantPolicySchema,
  })
  .describe('A tenant’s spend and limits');
type TenantSpendView = z.infer<typeof tenantSpendViewSchema>;

function periodView(spend: TenantSpendPeriod, standing: SpendPeriodStanding): TenantSpendView['day'] {
  const usd = (microUsd: number | null) => (microUsd === null ? null : microUsdToUsd(microUsd));
  return {
    period: standing.period,
    spentUsd: microUsdToUsd(standing.spentMicroUsd),
    limitUsd: usd(standing.limitMicroUsd),
    remainingUsd: usd(standing.remainingMicroUsd),
    limitReached: standing.reached,
    resetsAt: standing.resetsAt.toISOString(),
    usage: spend.usage,
  };
}

export function spendRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'GET',
    url: '/v1/spend',
    operationId: 'getSpend',
    summary: 'Spend and limits of a tenant',
    description:
      'What the tenant’s model calls cost this UTC day and month (USD and tokens by class), ' +
      'its spend limits, what remains and when each period resets, and its policy in force ' +
      '(run budget defaults and maximums). The caller’s tenant; an admin key may name any ' +
      'tenant with `?tenant=` (another key answers 403 `forbidden`). Needs the `runs:read` scope.',
    tags: ['runs'],
    access: 'runs:read',
    query: spendQuerySchema,
    responses: { 200: { description: 'The tenant’s spend and limits', schema: tenantSpendViewSchema } },
    errors: ['invalid_query'],
    async handler(request): Promise<TenantSpendView> {
      requireTenantReadable(request, request.query.tenant, 'read another tenant’s spend');
      const tenant = request.query.tenant ?? authOf(request).tenant;
      const account = await readTenantAccount({ fleet, tenant });
      return {
        tenant,
        day: periodView(account.spend.day, account.standing.day),
        month: periodView(account.spend.month, account.standing.month),
        policy: account.policy,
      };
    },
  });
}
