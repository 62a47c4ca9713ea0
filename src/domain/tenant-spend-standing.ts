// Where a tenant stands against its spend limits: per UTC day and UTC month, what it spent, its
// limit, what is left and when the period starts afresh. POST /v1/runs refuses a tenant whose day
// or month has reached its limit, and lowers a new run's USD budget to what is left
// (run-budget.ts); GET /v1/spend shows it.
import { policyMicroUsd, type TenantPolicy } from './tenant-policy.js';

export type SpendPeriodKind = 'day' | 'month';

export interface SpendPeriodStanding {
  kind: SpendPeriodKind;
  /** `2026-11-23` for a day, `2026-11` for a month (UTC). */
  period: string;
  spentMicroUsd: number;
  /** null: the policy sets no limit for this period. */
  limitMicroUsd: number | null;
  /** Never below 0; null without a limit. */
  remainingMicroUsd: number | null;
  /** Whether the limit is reached: new runs are refused until the period resets. */
  reached: boolean;
  /** The start of the next period (UTC), when the spent amount starts again from 0. */
  resetsAt: Date;
}

/** The first instant of the UTC day or month after the one `now` is in. */
export function nextPeriodStart(kind: SpendPeriodKind, now: Date): Date {
  return kind === 'day'
    ? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1))
    : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/** The tenant's standing in the day and the month of `now`, from what it spent there. */
export function tenantSpendStanding({
  policy,
  spent,
  now,
}: {
  policy: TenantPolicy;
  spent: { day: { period: string; costMicroUsd: number }; month: { period: string; costMicroUsd: number } };
  now: Date;
}): { day: SpendPeriodStanding; month: SpendPeriodStanding } {
  const standing = (kind: SpendPeriodKind, limitUsd: number | null): SpendPeriodStanding => {
    const limitMicroUsd = policyMicroUsd(limitUsd);
    const { period, costMicroUsd } = spent[kind];
    return {
      kind,
      period,
      spentMicroUsd: costMicroUsd,
      limitMicroUsd,
      remainingMicroUsd: limitMicroUsd === null ? null : Math.max(0, limitMicroUsd - costMicroUsd),
      reached: limitMicroUsd !== null && costMicroUsd >= limitMicroUsd,
      resetsAt: nextPeriodStart(kind, now),
    };
  };
  return { day: standing('day', policy.dailySpendLimitUsd), month: standing('month', policy.monthlySpendLimitUsd) };
}
