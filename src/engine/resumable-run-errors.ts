// Which failed runs `POST /v1/runs/:id/resume` may continue from their failed turn: the ones whose
// cause was outside the run — the model API, its rate limits, the account's spend cap, a lost
// worker — so the same turn, asked again later, can succeed. Every other code describes the run
// itself (its budget, its turns, the model's answers, its stored state): calling the same turn
// again would fail the same way, or spend past what its owner allowed. docs/run-states.md#resume
// holds the table; resumable-run-errors.test.ts checks it lists these codes and no others.
import type { RunErrorCode } from '../domain/run-outcomes.js';

/** Why each resumable code may be resumed, for the docs and the refusal of the others. */
export const RESUMABLE_RUN_ERRORS = {
  model_unavailable: 'the model API failed or stayed overloaded; a later call may succeed',
  rate_limit_exhausted: 'the rate limit was reached for too long; it refills',
  billing_spend_cap:
    'the account spend limit was reached; once it is raised, the call may be made (new runs and resumes are refused while the fleet’s spend-limit flag stands)',
  job_attempts_exhausted: 'the model job failed for good outside the turn (a worker, Redis); the turn itself never decided to fail',
  run_stalled: 'the run lost its jobs more often than the reaper hands a turn on; nothing in the run failed',
} as const satisfies Partial<Record<RunErrorCode, string>>;

export type ResumableRunErrorCode = keyof typeof RESUMABLE_RUN_ERRORS;

export function isResumableRunError(code: string): code is ResumableRunErrorCode {
  return Object.hasOwn(RESUMABLE_RUN_ERRORS, code);
}
