// A run read back from history (src/history/) as the record the run view is built from, so a run
// whose Redis keys are gone answers GET /v1/runs/:id exactly as it did while Redis held it.
import type { ArchivedRun } from '../history/run-archive.js';
import type { RunViewRecord } from './run-view.js';

/** The view record of an archived run. Its last transition is when it ended (archive: endedAt =
 * the terminal record's updatedAt); its error is the archived code and message, rejoined. */
export function archivedRunViewRecord(run: ArchivedRun): RunViewRecord {
  return {
    id: run.id,
    status: run.status,
    // A row archived before history kept the agent reads `site-builder` (migration 1767657600000).
    agent: run.agent,
    phase: run.phase,
    turn: run.turns,
    model: run.model,
    // A row archived before history kept the provider reads `anthropic` (migration 1767484800000).
    provider: run.provider,
    maxTokens: run.maxTokens,
    thinking: run.thinking,
    thinkingBudgetTokens: run.thinkingBudgetTokens,
    effort: run.effort,
    thinkingDisplay: run.thinkingDisplay,
    todos: run.todos,
    latestDeploy: run.latestDeploy,
    liveDeploy: run.liveDeploy,
    usage: run.usage,
    costMicroUsd: run.costMicroUsd,
    budget: run.budget,
    result: run.result,
    // decodeRunRow refuses a row with one of the two and not the other.
    error: run.errorCode === null ? null : { code: run.errorCode, message: run.errorMessage ?? '' },
    question: run.question,
    traceId: run.traceId,
    createdAt: run.createdAt,
    updatedAt: run.endedAt,
    rerunOf: run.rerunOf,
  };
}
