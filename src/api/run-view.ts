// The run as the API shows it: the stored record minus internals (prompt bookkeeping, counters,
// trace carrier), plus the workspace listing, absolute site URLs (on the sites origin), the cache hit ratio, the cost
// in dollars (stored as whole micro-dollars) and the budgets with what is left of them.
import type { RunRecord } from '../engine/index.js';
import { deploymentUrl, liveSiteUrl } from '../tools/site-urls.js';
import type { RunView } from './api-schemas.js';
import { cacheHitRatio, totalTokens } from '../domain/usage.js';
import { microUsdToUsd } from '../domain/usage-cost.js';
import { budgetStanding } from '../domain/run-budget.js';
import { redactText, redactValue } from '../telemetry/redact-secrets.js';

/** What the view is built from: the run record's fields it shows, whether Redis holds the record
 * or history does (archived-run-view-record.ts). */
export type RunViewRecord = Pick<
  RunRecord,
  | 'id'
  | 'status'
  | 'phase'
  | 'agent'
  | 'turn'
  | 'model'
  | 'maxTokens'
  | 'thinking'
  | 'thinkingBudgetTokens'
  | 'effort'
  | 'thinkingDisplay'
  | 'todos'
  | 'latestDeploy'
  | 'liveDeploy'
  | 'usage'
  | 'costMicroUsd'
  | 'budget'
  | 'result'
  | 'error'
  | 'question'
  | 'traceId'
  | 'createdAt'
  | 'updatedAt'
  | 'rerunOf'
> & { provider: string };

/** The run's budgets with what it spent against them. */
function budgetView(run: RunViewRecord): RunView['budget'] {
  const { budget } = run;
  const usd = budgetStanding(budget.costMicroUsd, run.costMicroUsd);
  return {
    usd: usd ? { limit: microUsdToUsd(usd.limit), spent: microUsdToUsd(usd.spent), remaining: microUsdToUsd(usd.remaining), setBy: budget.costSetBy } : null,
    tokens: budgetStanding(budget.tokens, totalTokens(run.usage)),
  };
}

/** Builds the public view of a run. The texts the model wrote (plan, result, question) may repeat
 * a secret of the prompt: they are redacted on the way out, like the transcript (the error was
 * redacted when stored). */
export function toRunView({
  run,
  files,
  sitesBaseUrl,
}: {
  run: RunViewRecord;
  files: Array<{ path: string; bytes: number }>;
  /** The sites origin (BUILDFLEET_SITES_PUBLIC_URL): site links never point at the API. */
  sitesBaseUrl: string;
}): RunView {
  return {
    id: run.id,
    status: run.status,
    agent: run.agent,
    phase: run.phase,
    turn: run.turn,
    model: run.model,
    provider: run.provider,
    maxTokens: run.maxTokens,
    thinking: run.thinking,
    thinkingBudgetTokens: run.thinkingBudgetTokens,
    effort: run.effort,
    thinkingDisplay: run.thinkingDisplay,
    todos: redactValue(run.todos),
    files,
    deployment: {
      latest: run.latestDeploy ? { id: run.latestDeploy, url: deploymentUrl({ sitesBaseUrl, runId: run.id, deployId: run.latestDeploy }) } : null,
      live: run.liveDeploy ? { id: run.liveDeploy, url: liveSiteUrl({ sitesBaseUrl, runId: run.id }) } : null,
    },
    usage: run.usage,
    cacheHitRatio: cacheHitRatio(run.usage),
    costUsd: microUsdToUsd(run.costMicroUsd),
    budget: budgetView(run),
    result: run.result === null ? null : redactText(run.result),
    error: run.error,
    question: redactValue(run.question),
    traceId: run.traceId,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    rerunOf: run.rerunOf,
  };
}
