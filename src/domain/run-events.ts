// Every event a run's stream can hold (GET /v1/runs/:id/events, the log, span events), each with
// what it says. Names are noun-verb (`turn-start`, `tool-call-end`, `killswitch-trip`): the thing,
// then what happened to it. A name missing here does not compile where an event is made, and a
// stored event under any other name does not decode (the engine's, the API's and the history's
// schemas take their enum from here). docs/run-states.md and docs/webhooks.md document the fields.
// No zod here: the run console's bundle imports this list, and needs no schema library.

export const RUN_EVENTS = {
  // The run (src/engine/run-engine.ts, src/workers/).
  'run-create': 'The run was created: its model, max_tokens, thinking settings and budgets.',
  'run-end': 'The run reached a terminal status (always the last event of that end).',
  'run-resume': 'The reaper handed a stalled turn to a new job (reason, job_id, recovery).',
  'run-reopen': 'A client resumed a failed run at its failed turn (error_code undone, reopen count).',
  'run-stall': 'The reaper is ending a run that no live job carries.',
  'run-stop': 'An invalid tool output stopped the run (fail_closed) or its writes (safe_mode skip_writes).',
  'job-fail': 'A model job of the run failed for good; run-end follows.',
  'input-wait': 'ask_user parked the run for its question.',
  'input-receive': 'The question was answered; the run goes on.',
  // The model call (src/agent/run-model-turn.ts).
  'model-deprecation-warn': 'The run was created on a deprecated model (retires_on, successor).',
  'turn-start': 'A model call is about to be made: phase, tools, tool_choice, max_tokens, attempt.',
  'model-progress': 'The answer is streaming: tokens so far, the block being written.',
  'model-call-end': 'The answer was stored: stop_reason, usage by class, cost.',
  'model-call-fail': 'The call failed: status, error type, retry outcome, attempt.',
  'model-overload-wait': 'After an overload, the turn waits out its provider and class pause.',
  'model-rate-limit-wait': 'After a 429, the turn waits for the retry-after (or a backoff).',
  'model-admission-wait': 'The admission limiter had no capacity for the call yet.',
  'phase-change': 'The run moved to another phase.',
  'phase-message-add': 'The phase’s instructions and tool changes were added as a system message.',
  'tool-result-miss': 'Calls of the previous turn had no result; they were answered as failed.',
  // The answer (src/agent/stop-reason-handler.ts).
  'max-tokens-raise': 'A max_tokens truncation raised the run’s max_tokens.',
  'summary-fallback-use': 'After the finish gate and its re-asks, the carried finish_turn summary ends the run.',
  'text-call-detect': 'The answer’s text holds something that looks like a tool call.',
  'fence-only-stop': 'The answer’s text stopped inside an open code fence.',
  'finish-suspect': 'The model ended its turn before the finish gate passed; it is nudged.',
  'stop-sequence-match': 'The answer stopped at one of the fleet’s stop sequences (and what it does).',
  'stop-reason-reject': 'The answer carried a stop_reason nobody knows.',
  // Tool calls (src/agent/, src/tools/run-tool-job.ts).
  'tool-call-recover': 'A call written as text runs like a native one, under a synthetic id.',
  'tool-call-reemit': 'A call in a message with thinking is not rebuilt; the model is asked again.',
  'tool-call-truncate': 'A call was cut off at max_tokens and never runs.',
  'tool-call-dispatch': 'A call went to the tool queue.',
  'tool-call-reject': 'A call was answered as failed without running (tier, input, after the gate).',
  'tool-call-start': 'A tool started (attempt; the write claim for writes).',
  'tool-call-retry': 'A tool job failed outside the tool and is retried.',
  'tool-call-end': 'The call’s result is in the ledger: ok, status, error_code, duration.',
  'tool-output-reject': 'A tool’s output broke its output contract (reason).',
  'tool-output-injection-flag': 'Injection-like text was flagged in a tool’s output or error.',
  // Safety (src/tools/run-tool-job.ts).
  'killswitch-trip': 'This call’s output tripped a kill switch scope.',
  'killswitch-probe': 'This call’s probe write settled a half-open kill switch scope.',
  // Webhooks (src/workers/webhook-worker.ts).
  'webhook-deliver': 'A webhook delivery was answered 2xx.',
  'webhook-fail': 'A webhook delivery attempt failed (final says whether it was the last).',
} as const satisfies Record<string, string>;

export type RunEventName = keyof typeof RUN_EVENTS;
export const RUN_EVENT_NAMES = Object.keys(RUN_EVENTS) as [RunEventName, ...RunEventName[]];

export function isRunEventName(name: string): name is RunEventName {
  return Object.hasOwn(RUN_EVENTS, name);
}

/** One event as the engine stores it, named by `event`. Its other fields are documented per event
 * (docs/run-states.md) rather than typed: events are built by helpers that take a name and fields. */
export type RunEventOf<Name extends RunEventName> = { run_id: string; step: number; event: Name; [field: string]: unknown };
export type RunEvent = RunEventOf<RunEventName>;

/** An event before the engine stamps it with run_id and step (the events of a transition). */
export type RunEventDraft = { event: RunEventName; [field: string]: unknown };
