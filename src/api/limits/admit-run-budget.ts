// The money side of run admission: a tenant whose UTC day or month has reached its spend limit gets
// no new run (429 tenant_spend_limit_reached, retry-after until the period resets), and a new run's
// budgets are chosen within the tenant's policy (400 budget_above_tenant_maximum for more than its
// maximum, unless the key is an admin's). docs/costs.md ("Budgets") has the rules.
import { hasScope } from '../../auth/api-key-scopes.js';
import type { RequestedRunBudget, RunBudget } from '../../domain/run-budget.js';
import type { SpendPeriodStanding } from '../../domain/tenant-spend-standing.js';
import { microUsdToUsd } from '../../domain/usage-cost.js';
import { assertNever } from '../../domain/assert-never.js';
import { runBudgetFor, type TenantLimits } from '../../fleet/tenant-account.js';
import { apiErrors } from '../api-errors.js';
import type { RequestAuth } from '../request-auth.js';

const usd = (microUsd: number) => `$${microUsdToUsd(microUsd).toFixed(2)}`;

/** The refusal of a tenant whose period has reached its limit. */
function spendLimitReached(standing: SpendPeriodStanding, now: Date) {
  const seconds = Math.max(1, Math.ceil((standing.resetsAt.getTime() - now.getTime()) / 1000));
  const name = standing.kind === 'day' ? 'daily' : 'monthly';
  return apiErrors
    .tenantSpendLimitReached(
      `This tenant spent ${usd(standing.spentMicroUsd)} in UTC ${standing.kind} ${standing.period}, ` +
        `reaching its ${name} spend limit of ${usd(standing.limitMicroUsd ?? 0)}. New runs are refused ` +
        `until the ${standing.kind} resets at ${standing.resetsAt.toISOString()} (GET /v1/spend shows the spend).`,
    )
    .withHeaders({ 'retry-after': String(seconds) });
}

/**
 * Admits a new run's spending or throws: tenant_spend_limit_reached when the tenant's month or day
 * has reached its limit (the month first: the day resetting would not help), then
 * budget_above_tenant_maximum for a requested budget above the policy's maximum. `limits` is the
 * tenant's policy and standing as read at `now` (readTenantLimits, once per request). Returns the
 * run's budgets for the engine to store.
 */
export function admitRunBudget({
  limits,
  auth,
  requested,
  now,
}: {
  limits: TenantLimits;
  auth: RequestAuth;
  requested: RequestedRunBudget;
  now: Date;
}): RunBudget {
  for (const standing of limits.standing ? [limits.standing.month, limits.standing.day] : []) {
    if (standing.reached) throw spendLimitReached(standing, now);
  }
  const resolution = runBudgetFor({ limits, requested, mayExceedMaximum: hasScope({ scopes: auth.scopes, required: 'admin' }) });
  switch (resolution.kind) {
    case 'budget':
      return resolution.budget;
    case 'above_maximum': {
      const { option, requested: asked, maximum } = resolution.refusal;
      const amount = (value: number) => (option === 'budgetUsd' ? `$${value}` : `${value} tokens`);
      throw apiErrors.budgetAboveTenantMaximum(
        `options.${option} asks for ${amount(asked)}; this tenant's runs may ask for at ` +
          `most ${amount(maximum)}. Ask for less, or leave it out for the tenant's default.`,
      );
    }
    default:
      return assertNever(resolution);
  }
}
