// How a run can be, and how it can end: the one definition of run statuses and run error codes.
// The engine's Lua scripts take the terminal statuses from here (src/engine/lua-vocabulary.ts), the
// API documents the codes from here (docs/run-states.md lists them), and a new status or code is a
// compile error wherever a switch over them is exhaustive.

export const NON_TERMINAL_STATUSES = ['queued', 'running', 'waiting_for_input'] as const;
export const TERMINAL_STATUSES = ['succeeded', 'failed', 'refused', 'cancelled'] as const;
export const RUN_STATUSES = [...NON_TERMINAL_STATUSES, ...TERMINAL_STATUSES] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];

export function isTerminal(status: RunStatus): status is TerminalStatus {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

/**
 * Every code a run can end with (`run.error.code`), and what it means. The model API's own error
 * types map onto the `model_*` codes (src/model/classify-model-error.ts) — an error type nobody
 * knows becomes `model_error`, so the set stays closed.
 */
export const RUN_ERROR_CODES = {
  // Bounds, checked before each model call.
  max_turns_exceeded: 'The run used all of its turns.',
  budget_exceeded: 'The next model call could have crossed the run’s USD or token budget, so the run stopped before it.',
  // The model's answers (src/agent/stop-reason-handler.ts).
  unverified_finish: 'The model tried to finish before the finish gate passed, too many times.',
  safe_mode_incomplete: 'The run continued in skip_writes safe mode and could not finish.',
  tool_use_without_calls: 'stop_reason was tool_use but the answer held no tool call.',
  context_window_exceeded: 'The transcript no longer fits the model context window.',
  max_tokens_exhausted: 'The answer was cut at max_tokens at the ceiling, too many times in a row.',
  role_play_drift: "The model kept writing the user's turn.",
  pause_turn_limit: 'The model paused too many turns in a row.',
  refused: 'The model refused to continue (stop_reason refusal).',
  unexpected_stop: 'The model stopped with a stop_reason nobody knows.',
  // The model API (src/model/classify-model-error.ts).
  model_unavailable: 'The model API failed or stayed overloaded past the retry budget.',
  rate_limit_exhausted: 'The model stayed rate limited for too many retry-after cycles.',
  billing_spend_cap: 'The provider refused the call: the organisation spend limit is reached.',
  model_invalid_request_error: 'The model API refused the request as invalid (400).',
  model_authentication_error: 'The model API refused the key (401).',
  model_permission_error: 'The key may not use this model or feature (403).',
  model_not_found_error: 'The model or endpoint does not exist (404).',
  model_request_too_large: 'The request was larger than the API accepts (413).',
  model_billing_error: 'The provider refused the call for a billing reason.',
  model_error: 'The model API answered with an error nobody classified.',
  provider_not_configured:
    'The run names a model provider this worker does not have (its BUILDFLEET_PROVIDERS declaration was removed after the run was created).',
  // Tools and people.
  invalid_tool_output: 'A tool returned an invalid output and its contract is fail_closed.',
  cancelled: 'The run was cancelled through the API.',
  // The engine.
  stored_run_invalid: "The run's stored state did not decode (a field of the wrong shape); the run cannot go on.",
  // The queues (src/fleet/run-commands.ts, src/workers/end-run-of-failed-job.ts, src/workers/run-reaper.ts).
  enqueue_failed: 'The run was created but its first model turn could not be enqueued; it never started (the submission failed and may be retried).',
  job_attempts_exhausted:
    'A model job of the run failed for good (its attempts spent, or an unrecoverable error); the run ' +
    'cannot go on. (A tool job that fails for good is answered to the model as a failed call instead.)',
  run_stalled: 'The run had no live job, and the reaper could not hand its turn to a new one within its bound.',
} as const satisfies Record<string, string>;
export type RunErrorCode = keyof typeof RUN_ERROR_CODES;

export function isRunErrorCode(code: string): code is RunErrorCode {
  return Object.hasOwn(RUN_ERROR_CODES, code);
}

/** The run error code of a model API error type (`invalid_request_error` …), closed over the set. */
export function modelErrorCode(errorType: string | null | undefined): RunErrorCode {
  const code = `model_${errorType ?? 'error'}`;
  return isRunErrorCode(code) ? code : 'model_error';
}
