import { describe, expect, it } from 'vitest';
import { effectiveTenantPolicy } from './tenant-policy.js';
import { nextPeriodStart, tenantSpendStanding } from './tenant-spend-standing.js';

const defaults = { defaultRunBudgetUsd: 0, maxRunBudgetUsd: 0, defaultRunTokenBudget: 400_000, maxRunTokenBudget: 0, dailySpendLimitUsd: 0, monthlySpendLimitUsd: 0, maxTurns: 40, maxConcurrentRuns: 0 };

describe('a tenant’s standing against its spend limits', () => {
  it('resets at the next UTC midnight and the first of the next UTC month (across the year too)', () => {
    expect(nextPeriodStart('day', new Date('2026-11-23T23:59:59.999Z')).toISOString()).toBe('2026-11-24T00:00:00.000Z');
    expect(nextPeriodStart('day', new Date('2026-12-31T10:00:00Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(nextPeriodStart('month', new Date('2026-12-31T10:00:00Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(nextPeriodStart('month', new Date('2026-02-01T00:00:00Z')).toISOString()).toBe('2026-03-01T00:00:00.000Z');
  });

  it('says what remains (never below 0) and whether the limit is reached; no limit, no remainder', () => {
    const policy = effectiveTenantPolicy({ defaults, overrides: { dailySpendLimitUsd: 1.5 } });
    const now = new Date('2026-11-23T12:00:00Z');
    const under = tenantSpendStanding({ policy, spent: { day: { period: '2026-11-23', costMicroUsd: 1_000_000 }, month: { period: '2026-11', costMicroUsd: 7_000_000 } }, now });
    expect(under.day).toMatchObject({ limitMicroUsd: 1_500_000, spentMicroUsd: 1_000_000, remainingMicroUsd: 500_000, reached: false });
    expect(under.month).toMatchObject({ limitMicroUsd: null, remainingMicroUsd: null, reached: false, period: '2026-11' });
    const over = tenantSpendStanding({ policy, spent: { day: { period: '2026-11-23', costMicroUsd: 1_600_000 }, month: { period: '2026-11', costMicroUsd: 0 } }, now });
    expect(over.day).toMatchObject({ remainingMicroUsd: 0, reached: true });
    expect(over.day.resetsAt.toISOString()).toBe('2026-11-24T00:00:00.000Z');
    const exactly = tenantSpendStanding({ policy, spent: { day: { period: '2026-11-23', costMicroUsd: 1_500_000 }, month: { period: '2026-11', costMicroUsd: 0 } }, now });
    expect(exactly.day.reached).toBe(true);
  });
});
