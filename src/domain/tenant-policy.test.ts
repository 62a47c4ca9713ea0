import { describe, expect, it } from 'vitest';
import { effectiveTenantPolicy, tenantPolicyOverridesSchema, type TenantPolicyDefaults } from './tenant-policy.js';

const fleet: TenantPolicyDefaults = {
  defaultRunBudgetUsd: 0,
  maxRunBudgetUsd: 0,
  defaultRunTokenBudget: 400_000,
  maxRunTokenBudget: 0,
  dailySpendLimitUsd: 100,
  monthlySpendLimitUsd: 0,
  maxTurns: 40,
  maxConcurrentRuns: 20,
};

describe('a tenant’s policy', () => {
  it('is the fleet’s defaults where the tenant sets nothing, 0 meaning none', () => {
    expect(effectiveTenantPolicy({ defaults: fleet, overrides: {} })).toEqual({
      defaultRunBudgetUsd: null,
      maxRunBudgetUsd: null,
      defaultRunTokenBudget: 400_000,
      maxRunTokenBudget: null,
      dailySpendLimitUsd: 100,
      monthlySpendLimitUsd: null,
      maxTurns: 40,
      maxConcurrentRuns: 20,
      allowedModels: null,
      allowedProviders: null,
      defaultEffort: null,
    });
  });

  it('takes the run limits of issue #16 the same way: turns, runs not yet ended (0 = none), allowed models', () => {
    expect(
      effectiveTenantPolicy({ defaults: fleet, overrides: { maxTurns: 12, maxConcurrentRuns: 0, allowedModels: ['claude-haiku-4-5', 'claude-sonnet-4-6'] } }),
    ).toMatchObject({ maxTurns: 12, maxConcurrentRuns: null, allowedModels: ['claude-haiku-4-5', 'claude-sonnet-4-6'] });
    for (const refused of [
      { maxTurns: 0 },
      { maxTurns: 201 },
      { maxTurns: 2.5 },
      { maxConcurrentRuns: -1 },
      { allowedModels: [] },
      { allowedModels: ['a', 'a'] },
      { allowedModels: [''] },
      { allowedModels: 'claude-haiku-4-5' },
      { allowedModels: Array.from({ length: 51 }, (_, index) => `m${index}`) },
    ]) {
      expect(tenantPolicyOverridesSchema.safeParse(refused).success, JSON.stringify(refused).slice(0, 80)).toBe(false);
    }
  });

  it('takes each override over the fleet’s default, and 0 turns a fleet limit off for the tenant', () => {
    expect(effectiveTenantPolicy({ defaults: fleet, overrides: { dailySpendLimitUsd: 0, monthlySpendLimitUsd: 500, defaultRunBudgetUsd: 1.5 } })).toMatchObject({
      dailySpendLimitUsd: null,
      monthlySpendLimitUsd: 500,
      defaultRunBudgetUsd: 1.5,
    });
  });

  it('lowers a default to its maximum, and a maximum without a default becomes the default', () => {
    // The fleet's 400,000-token default under a tenant maximum of 100,000.
    expect(effectiveTenantPolicy({ defaults: fleet, overrides: { maxRunTokenBudget: 100_000 } })).toMatchObject({ defaultRunTokenBudget: 100_000, maxRunTokenBudget: 100_000 });
    // No USD default, a maximum of $2: a run that names no budget gets $2, not an unbounded one.
    expect(effectiveTenantPolicy({ defaults: fleet, overrides: { maxRunBudgetUsd: 2 } })).toMatchObject({ defaultRunBudgetUsd: 2, maxRunBudgetUsd: 2 });
  });

  it('refuses unknown fields, amounts out of range and a default above its maximum', () => {
    expect(tenantPolicyOverridesSchema.safeParse({ dailySpendLimit: 5 }).success).toBe(false);
    expect(tenantPolicyOverridesSchema.safeParse({ dailySpendLimitUsd: -1 }).success).toBe(false);
    expect(tenantPolicyOverridesSchema.safeParse({ maxRunTokenBudget: 1.5 }).success).toBe(false);
    expect(tenantPolicyOverridesSchema.safeParse({ maxRunTokenBudget: 20_000_000 }).success).toBe(false);
    const inverted = tenantPolicyOverridesSchema.safeParse({ defaultRunBudgetUsd: 5, maxRunBudgetUsd: 1 });
    expect(inverted.success).toBe(false);
    expect(inverted.error?.issues[0]).toMatchObject({ path: ['defaultRunBudgetUsd'], message: 'defaultRunBudgetUsd (5) is above maxRunBudgetUsd (1)' });
    // A maximum of 0 is none, so any default is within it.
    expect(tenantPolicyOverridesSchema.safeParse({ defaultRunBudgetUsd: 5, maxRunBudgetUsd: 0 }).success).toBe(true);
  });
});
