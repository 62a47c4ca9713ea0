import { describe, expect, it } from 'vitest';
import { checkRunBudget, resolveRunBudget, type RunBudget } from './run-budget.js';
import { effectiveTenantPolicy } from './tenant-policy.js';

const defaults = { defaultRunBudgetUsd: 1, maxRunBudgetUsd: 5, defaultRunTokenBudget: 400_000, maxRunTokenBudget: 1_000_000, dailySpendLimitUsd: 0, monthlySpendLimitUsd: 0, maxTurns: 40, maxConcurrentRuns: 0 };
const policy = effectiveTenantPolicy({ defaults, overrides: {} });
const unlimited = { day: null, month: null };

describe('a new run’s budgets', () => {
  it('are what the run asked for, else the tenant’s defaults', () => {
    expect(resolveRunBudget({ policy, requested: {}, mayExceedMaximum: false, remainingMicroUsd: unlimited })).toEqual({
      kind: 'budget',
      budget: { costMicroUsd: 1_000_000, tokens: 400_000, costSetBy: 'run' },
    });
    expect(resolveRunBudget({ policy, requested: { budgetUsd: 0.1, tokenBudget: 50_000 }, mayExceedMaximum: false, remainingMicroUsd: unlimited })).toEqual({
      kind: 'budget',
      budget: { costMicroUsd: 100_000, tokens: 50_000, costSetBy: 'run' },
    });
  });

  it('refuse more than the tenant’s maximum, naming the option, unless the caller may exceed it', () => {
    expect(resolveRunBudget({ policy, requested: { budgetUsd: 5.01 }, mayExceedMaximum: false, remainingMicroUsd: unlimited })).toEqual({
      kind: 'above_maximum',
      refusal: { option: 'budgetUsd', requested: 5.01, maximum: 5 },
    });
    expect(resolveRunBudget({ policy, requested: { tokenBudget: 2_000_000 }, mayExceedMaximum: false, remainingMicroUsd: unlimited })).toMatchObject({
      kind: 'above_maximum',
      refusal: { option: 'tokenBudget', maximum: 1_000_000 },
    });
    expect(resolveRunBudget({ policy, requested: { budgetUsd: 50, tokenBudget: 2_000_000 }, mayExceedMaximum: true, remainingMicroUsd: unlimited })).toEqual({
      kind: 'budget',
      budget: { costMicroUsd: 50_000_000, tokens: 2_000_000, costSetBy: 'run' },
    });
  });

  it('lower the USD budget to what the tenant may still spend, the tighter of day and month', () => {
    expect(resolveRunBudget({ policy, requested: {}, mayExceedMaximum: false, remainingMicroUsd: { day: 300_000, month: 2_000_000 } })).toMatchObject({
      budget: { costMicroUsd: 300_000, costSetBy: 'tenant_daily_spend_limit' },
    });
    expect(resolveRunBudget({ policy, requested: {}, mayExceedMaximum: false, remainingMicroUsd: { day: 300_000, month: 200_000 } })).toMatchObject({
      budget: { costMicroUsd: 200_000, costSetBy: 'tenant_monthly_spend_limit' },
    });
    // A run without a USD budget under a spend limit gets one: what remains.
    const none = effectiveTenantPolicy({ defaults: { ...defaults, defaultRunBudgetUsd: 0, maxRunBudgetUsd: 0 }, overrides: {} });
    expect(resolveRunBudget({ policy: none, requested: {}, mayExceedMaximum: false, remainingMicroUsd: { day: 700_000, month: null } })).toMatchObject({
      budget: { costMicroUsd: 700_000, costSetBy: 'tenant_daily_spend_limit' },
    });
    // More remaining than asked: the run's own stands.
    expect(resolveRunBudget({ policy, requested: { budgetUsd: 0.2 }, mayExceedMaximum: false, remainingMicroUsd: { day: 700_000, month: null } })).toMatchObject({
      budget: { costMicroUsd: 200_000, costSetBy: 'run' },
    });
  });
});

describe('the check before a model call', () => {
  const budget: RunBudget = { costMicroUsd: 100_000, tokens: 50_000, costSetBy: 'run' };
  const call = { costMicroUsd: 30_000, promptTokens: 4_000, maxTokens: 8_000 };

  it('lets a call go whose worst case keeps the run within both budgets, up to the budget exactly', () => {
    expect(checkRunBudget({ budget, spent: { costMicroUsd: 70_000, tokens: 38_000 }, call })).toBeNull();
    expect(checkRunBudget({ budget: { costMicroUsd: null, tokens: null, costSetBy: 'run' }, spent: { costMicroUsd: 10 ** 9, tokens: 10 ** 9 }, call })).toBeNull();
  });

  it('stops a call that could cross the USD budget, naming spent, estimate and budget', () => {
    expect(checkRunBudget({ budget, spent: { costMicroUsd: 70_001, tokens: 0 }, call })).toBe(
      'The run spent $0.070001; its next model call could cost up to $0.030000 (about 4,000 input tokens and 8,000 max_tokens), which would cross its budget of $0.100000. It stopped before that call.',
    );
    expect(checkRunBudget({ budget: { ...budget, costSetBy: 'tenant_daily_spend_limit' }, spent: { costMicroUsd: 70_001, tokens: 0 }, call })).toMatch(/lowered at its start to what its tenant could still spend that UTC day/);
  });

  it('stops a call that could cross the token budget', () => {
    expect(checkRunBudget({ budget, spent: { costMicroUsd: 0, tokens: 38_001 }, call })).toBe(
      'The run used 38,001 tokens; its next model call could use up to 12,000 (about 4,000 input tokens and 8,000 max_tokens), which would cross its token budget of 50,000. It stopped before that call.',
    );
  });
});
