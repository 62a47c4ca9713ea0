// A tenant's account as run admission and the spend endpoint see it: its policy in force (its
// overrides over the fleet's defaults, src/domain/tenant-policy.ts), what it spent in the current
// UTC day and month, and where that leaves it against its limits. Every read is a key of the
// tenant's hash tag.
import { tenantPolicyDefaults } from '../config.js';
import { resolveRunBudget, type RequestedRunBudget, type RunBudgetResolution } from '../domain/run-budget.js';
import { effectiveTenantPolicy, type TenantPolicy, type TenantPolicyOverrides } from '../domain/tenant-policy.js';
import { tenantSpendStanding, type SpendPeriodStanding } from '../domain/tenant-spend-standing.js';
import { TenantPolicyStore, type TenantSpendPeriod } from '../engine/index.js';
import type { FleetContext } from './fleet-context.js';

export interface TenantAccount {
  tenant: string;
  overrides: TenantPolicyOverrides;
  policy: TenantPolicy;
  spend: { day: TenantSpendPeriod; month: TenantSpendPeriod };
  standing: { day: SpendPeriodStanding; month: SpendPeriodStanding };
}

/** The tenant's policy store over the fleet's Redis. */
export function tenantPolicyStore(fleet: Pick<FleetContext, 'redis' | 'store'>): TenantPolicyStore {
  return new TenantPolicyStore(fleet.redis, fleet.store.keys);
}

/** The policy in force for `overrides` under this fleet's defaults. */
export function policyInForce(fleet: Pick<FleetContext, 'config'>, overrides: TenantPolicyOverrides): TenantPolicy {
  return effectiveTenantPolicy({ defaults: tenantPolicyDefaults(fleet.config), overrides });
}

/** Reads the tenant's policy and spend (validated; sent together, one round trip) and where it
 * stands, at `now`. */
export async function readTenantAccount({
  fleet,
  tenant,
  now = new Date(),
}: {
  fleet: Pick<FleetContext, 'config' | 'redis' | 'store'>;
  tenant: string;
  now?: Date;
}): Promise<TenantAccount> {
  const [overrides, spend] = await Promise.all([tenantPolicyStore(fleet).get(tenant), fleet.store.tenantSpend(tenant, now)]);
  const policy = policyInForce(fleet, overrides);
  return { tenant, overrides, policy, spend, standing: tenantSpendStanding({ policy, spent: spend, now }) };
}

/** What run admission needs of a tenant: its policy, and its standing when the policy has a spend
 * limit (null otherwise: a tenant without limits costs admission one read, not two). */
export interface TenantLimits {
  policy: TenantPolicy;
  standing: { day: SpendPeriodStanding; month: SpendPeriodStanding } | null;
}

/** Reads the tenant's policy, then its spend only if a spend limit makes it matter. */
export async function readTenantLimits({
  fleet,
  tenant,
  now = new Date(),
}: {
  fleet: Pick<FleetContext, 'config' | 'redis' | 'store'>;
  tenant: string;
  now?: Date;
}): Promise<TenantLimits> {
  const policy = policyInForce(fleet, await tenantPolicyStore(fleet).get(tenant));
  if (policy.dailySpendLimitUsd === null && policy.monthlySpendLimitUsd === null) return { policy, standing: null };
  const spend = await fleet.store.tenantSpend(tenant, now);
  return { policy, standing: tenantSpendStanding({ policy, spent: spend, now }) };
}

/** A new run's budgets under the tenant's limits (src/domain/run-budget.ts). */
export function runBudgetFor({
  limits,
  requested,
  mayExceedMaximum,
}: {
  limits: TenantLimits;
  requested: RequestedRunBudget;
  mayExceedMaximum: boolean;
}): RunBudgetResolution {
  return resolveRunBudget({
    policy: limits.policy,
    requested,
    mayExceedMaximum,
    remainingMicroUsd: { day: limits.standing?.day.remainingMicroUsd ?? null, month: limits.standing?.month.remainingMicroUsd ?? null },
  });
}
