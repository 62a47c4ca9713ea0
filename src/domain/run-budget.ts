// A run's budgets, in USD and in tokens: chosen once when the run is created (its options within
// its tenant's policy, lowered to what the tenant may still spend today and this month) and stored
// on the run; checked before every model call against the worst that call can cost, so a run stops
// with `budget_exceeded` before the call that could cross a budget, never after (docs/costs.md,
// "Budgets").
import { z } from 'zod';
import { policyMicroUsd, type TenantPolicy } from './tenant-policy.js';
import { microUsdToUsd, usdToMicroUsd } from './usage-cost.js';

/** What set a run's USD budget: its own (asked for, or the tenant's default), or what its tenant
 * could still spend that UTC day or month when that was less. */
export const RUN_BUDGET_SOURCES = ['run', 'tenant_daily_spend_limit', 'tenant_monthly_spend_limit'] as const;
export type RunBudgetSource = (typeof RUN_BUDGET_SOURCES)[number];

/** A run's budgets as stored on its record; null = no budget of that kind. */
export const runBudgetSchema = z.object({
  costMicroUsd: z.int().nonnegative().nullable(),
  tokens: z.int().nonnegative().nullable(),
  costSetBy: z.enum(RUN_BUDGET_SOURCES),
});
export type RunBudget = z.infer<typeof runBudgetSchema>;

/** What a run asked for (`options.budgetUsd`, `options.tokenBudget`). */
export interface RequestedRunBudget {
  budgetUsd?: number | undefined;
  tokenBudget?: number | undefined;
}

/** A requested budget above the tenant's maximum. */
export interface RunBudgetAboveMaximum {
  option: 'budgetUsd' | 'tokenBudget';
  requested: number;
  maximum: number;
}

export type RunBudgetResolution = { kind: 'budget'; budget: RunBudget } | { kind: 'above_maximum'; refusal: RunBudgetAboveMaximum };

/**
 * The budgets of a new run: what it asked for, else its tenant's defaults; a request above the
 * tenant's maximum is refused unless `mayExceedMaximum` (an admin key). The USD budget is then
 * lowered to what the tenant may still spend in the UTC day and month (`remainingMicroUsd`, null
 * where there is no limit), so one run alone never takes its tenant past a spend limit.
 */
export function resolveRunBudget({
  policy,
  requested,
  mayExceedMaximum,
  remainingMicroUsd,
}: {
  policy: TenantPolicy;
  requested: RequestedRunBudget;
  mayExceedMaximum: boolean;
  remainingMicroUsd: { day: number | null; month: number | null };
}): RunBudgetResolution {
  if (!mayExceedMaximum) {
    if (requested.budgetUsd !== undefined && policy.maxRunBudgetUsd !== null && requested.budgetUsd > policy.maxRunBudgetUsd) {
      return { kind: 'above_maximum', refusal: { option: 'budgetUsd', requested: requested.budgetUsd, maximum: policy.maxRunBudgetUsd } };
    }
    if (requested.tokenBudget !== undefined && policy.maxRunTokenBudget !== null && requested.tokenBudget > policy.maxRunTokenBudget) {
      return { kind: 'above_maximum', refusal: { option: 'tokenBudget', requested: requested.tokenBudget, maximum: policy.maxRunTokenBudget } };
    }
  }
  let costMicroUsd = requested.budgetUsd !== undefined ? usdToMicroUsd(requested.budgetUsd) : policyMicroUsd(policy.defaultRunBudgetUsd);
  let costSetBy: RunBudgetSource = 'run';
  for (const [remaining, source] of [
    [remainingMicroUsd.day, 'tenant_daily_spend_limit'],
    [remainingMicroUsd.month, 'tenant_monthly_spend_limit'],
  ] as const) {
    if (remaining === null) continue;
    const left = Math.max(0, remaining);
    if (costMicroUsd === null || left < costMicroUsd) {
      costMicroUsd = left;
      costSetBy = source;
    }
  }
  const tokens = requested.tokenBudget ?? policy.defaultRunTokenBudget;
  return { kind: 'budget', budget: { costMicroUsd, tokens, costSetBy } };
}

/** The most the next call can cost and use, before it is made (estimateCallCostMicroUsd, and
 * the prompt estimate plus max_tokens). */
export interface CallWorstCase {
  costMicroUsd: number;
  promptTokens: number;
  maxTokens: number;
}

const dollars = (microUsd: number) => `$${microUsdToUsd(microUsd).toFixed(6)}`;
const count = (tokens: number) => tokens.toLocaleString('en-US');

/**
 * Whether the next call may go out: null when, at its worst, it keeps the run within both budgets;
 * otherwise the message the run ends `budget_exceeded` with, naming what was spent, the call's
 * worst case and the budget it would cross (USD first).
 */
export function checkRunBudget({
  budget,
  spent,
  call,
}: {
  budget: RunBudget;
  spent: { costMicroUsd: number; tokens: number };
  call: CallWorstCase;
}): string | null {
  if (budget.costMicroUsd !== null && spent.costMicroUsd + call.costMicroUsd > budget.costMicroUsd) {
    const setBy =
      budget.costSetBy === 'tenant_daily_spend_limit'
        ? ' (lowered at its start to what its tenant could still spend that UTC day)'
        : budget.costSetBy === 'tenant_monthly_spend_limit'
          ? ' (lowered at its start to what its tenant could still spend that UTC month)'
          : '';
    return (
      `The run spent ${dollars(spent.costMicroUsd)}; its next model call could cost ` +
      `up to ${dollars(call.costMicroUsd)} (about ${count(call.promptTokens)} input ` +
      `tokens and ${count(call.maxTokens)} max_tokens), which would cross its budget ` +
      `of ${dollars(budget.costMicroUsd)}${setBy}. It stopped before that call.`
    );
  }
  const callTokens = call.promptTokens + call.maxTokens;
  if (budget.tokens !== null && spent.tokens + callTokens > budget.tokens) {
    return (
      `The run used ${count(spent.tokens)} tokens; its next model call could use up to ` +
      `${count(callTokens)} (about ${count(call.promptTokens)} input tokens and ${count(call.maxTokens)} ` +
      `max_tokens), which would cross its token budget of ${count(budget.tokens)}. It stopped before that call.`
    );
  }
  return null;
}

/** One budget as shown: its limit, what was spent against it and what is left (never below 0). */
export function budgetStanding(limit: number | null, spent: number): { limit: number; spent: number; remaining: number } | null {
  return limit === null ? null : { limit, spent, remaining: Math.max(0, limit - spent) };
}
