// The run as the API shows it: the stored record minus internals (prompt bookkeeping, counters,
// trace carrier), plus the workspace listing and absolute site URLs.
import type { RunRecord } from '../engine/run-types.js';
import { deploymentUrl, liveSiteUrl } from '../tools/site-urls.js';
import type { RunView } from './api-schemas.js';

/** Builds the public view of a run. */
export function toRunView({
  run,
  files,
  publicBaseUrl,
}: {
  run: RunRecord;
  files: Array<{ path: string; bytes: number }>;
  publicBaseUrl: string;
}): RunView {
  return {
    id: run.id,
    status: run.status,
    phase: run.phase,
    turn: run.turn,
    model: run.model,
    maxTokens: run.maxTokens,
    thinkingBudgetTokens: run.thinkingBudgetTokens,
    todos: run.todos,
    files,
    deployment: {
      latest: run.latestDeploy
        ? { id: run.latestDeploy, url: deploymentUrl({ publicBaseUrl, runId: run.id, deployId: run.latestDeploy }) }
        : null,
      live: run.liveDeploy ? { id: run.liveDeploy, url: liveSiteUrl({ publicBaseUrl, runId: run.id }) } : null,
    },
    usage: run.usage,
    result: run.result,
    error: run.error,
    question: run.question,
    traceId: run.traceId,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
  };
}
