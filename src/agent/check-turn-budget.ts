// Step 3b of a model turn (run-model-turn.ts): the run's budgets, before anything is reserved or
// paid for. What the run spent plus the most this call can cost — every input token at the dearest
// way it can be billed (uncached, or written at the lifetime this request's breakpoints write) and
// all of max_tokens as output (domain/usage-cost.ts) — must stay within each budget, or the run
// ends here, before the call. Every token class counts: cached input is still input the run sent
// (domain/usage.ts).
import { totalTokens } from '../domain/usage.js';
import { estimateCallCostMicroUsd } from '../domain/usage-cost.js';
import { checkRunBudget } from '../domain/run-budget.js';
import type { TurnRequest } from './build-turn-request.js';
import { done, type ModelTurnResult, type TurnContext } from './turn-context.js';

/** Ends the run when this call could take it over a budget; null when the call may go. */
export async function checkTurnBudget({ context, request }: { context: TurnContext; request: TurnRequest }): Promise<ModelTurnResult | null> {
  const { deps, run, runId, turn } = context;
  const overBudget = checkRunBudget({
    budget: run.budget,
    spent: { costMicroUsd: run.costMicroUsd, tokens: totalTokens(run.usage) },
    call: {
      costMicroUsd: estimateCallCostMicroUsd({
        model: run.model,
        inputTokens: request.estimatedPromptTokens,
        maxOutputTokens: request.callMaxTokens,
        cacheLifetime: deps.config.BUILDFLEET_PROMPT_CACHING ? request.cacheTtl : null,
        overrides: deps.config.BUILDFLEET_MODEL_PRICES,
      }),
      promptTokens: request.estimatedPromptTokens,
      maxTokens: request.callMaxTokens,
    },
  });
  if (overBudget === null) return null;
  await deps.store.endRun(runId, turn, 'failed', { error: { code: 'budget_exceeded', message: overBudget } });
  return done('run_failed:budget_exceeded');
}
