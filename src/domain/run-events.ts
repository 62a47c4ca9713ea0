// Every event a run's stream can hold (GET /v1/runs/:id/events, the log, span events), each with
// what it says. Names are noun-verb (`turn-start`, `tool-call-end`, `killswitch-trip`): the thing,
// then what happened to it. A name missing here does not compile where an event is made, and a
// stored event under any other name does not decode (the engine's, the API's and the history's
// schemas take their enum from here). docs/run-states.md and docs/webhooks.md document the fields.
// No zod here: the run console's bundle imports this list, and needs no schema library.

import { TERMINAL_STATUSES, type TerminalStatus } from './run-outcomes.js';

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
  'model-call-end': 'The answer was stored: stop_reason, usage by class, cost, the call’s duration and time to first token.',
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

/** How loud an event is: `warn` and `error` events also go to the log at that level. Any event may carry it. */
export type RunEventLevel = 'info' | 'warn' | 'error';

/** The usage of one answer by token class (src/domain/usage.ts UsageByClass, re-spelled here so the
 * console's bundle needs no schema library). */
export type RunEventUsage = {
  input_tokens: number;
  cache_write_5m_input_tokens: number;
  cache_write_1h_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
};

/** The fields of each event besides run_id, step, event and level, as its emitters write them
 * (docs/run-states.md and docs/webhooks.md document them). A field some emitters leave out is
 * optional. Nothing here is open: every event's fields are closed, so a field an event does not
 * declare does not compile where the event is made (src/domain/run-events.type-test.ts). */
export interface RunEventFields {
  // The run.
  'run-create': {
    model: string;
    max_tokens: number;
    thinking: 'off' | 'manual' | 'adaptive' | 'between_tools';
    thinking_budget_tokens: number | null;
    effort: string | null;
    thinking_display: string | null;
    budget_usd: number | null;
    token_budget: number | null;
    trace_id?: string;
  };
  'run-end': { status: TerminalStatus; error_code?: string; message?: string };
  'run-resume': { reason: string; job_id: string; recovery: number; tool_use_ids?: string[] };
  'run-reopen': { job_id: string; error_code: string; reopen: number };
  'run-stall': { recoveries: number; code: string };
  'run-stop': { reason: string; safe_mode?: 'skip_writes' };
  'job-fail': { queue: string; job_id: string; attempts_made: number; reason: string };
  'input-wait': { question: string; tool_use_id: string };
  'input-receive': { tool_use_id: string; answer?: string };
  // The model call.
  'model-deprecation-warn': { model: string; retires_on: string | null; successor: string | null; message: string };
  'turn-start': {
    phase: string;
    tools: number;
    tool_choice: string;
    tool_layout: string;
    strict_tools: boolean;
    max_tokens: number;
    thinking: 'off' | 'manual' | 'adaptive' | 'between_tools';
    thinking_budget_tokens: number | null;
    effort?: string;
    attempt: number;
    pause_checked_at_ms?: number;
  };
  'model-progress': {
    output_tokens: number;
    estimated: boolean;
    block: string | null;
    tool: string | null;
    blocks: number;
    elapsed_ms: number;
    reason: 'interval' | 'tool_start';
  };
  'model-call-end': {
    request_id: string | null;
    stop_reason: string | null;
    stop_sequence: string | null;
    usage: RunEventUsage;
    cost_usd: number;
    tool_uses: string[];
    /** From the request to the whole answer, ms (events written before this field: absent). */
    duration_ms?: number;
    /** From the request to the answer's first token, ms (absent when the provider reported none). */
    first_token_ms?: number;
  };
  'model-call-fail': {
    status: number | null;
    error_type: string | null;
    outcome: string;
    message: string;
    request_id: string | null;
    attempt: number;
    /** From the request to the failure, ms (events written before this field: absent). */
    duration_ms?: number;
    usage?: RunEventUsage;
    cost_usd?: number;
  };
  'model-overload-wait': {
    provider?: string;
    rate_limit_class?: string;
    wait_ms: number | null;
    backoff_step: number | null;
    overloaded_for_ms: number;
    patience_ms: number;
    pause_from_ms?: number;
    pause_until_ms?: number;
  };
  'model-rate-limit-wait': {
    provider?: string;
    rate_limit_class?: string;
    wait_ms: number;
    cycle: number;
    pause_from_ms?: number;
    pause_until_ms?: number;
    backoff?: true;
  };
  'model-admission-wait': { wait_ms: number; limit: string; booked: boolean; priority: string };
  'phase-change': { from: string; to: string };
  'phase-message-add': { phase: string; tool_changes: number };
  'tool-result-miss': { tool_use_ids: string[] };
  // The answer.
  'max-tokens-raise': { from: number; to: number };
  'summary-fallback-use': { reprompts: number; tools: string[] };
  'text-call-detect': TextCallDetectFields;
  'fence-only-stop': TextCallDetectFields;
  'finish-suspect': { missing: string[]; nudges: number };
  'stop-sequence-match': { sequence: string; action: 'finish' | 'reprompt' };
  'stop-reason-reject': { raw_stop_reason: string };
  // Tool calls.
  'tool-call-recover': { tool: string; parse_mode: string; tool_use_id: string; original_text: string };
  'tool-call-reemit': { tool: string; parse_mode: string; reason: string };
  'tool-call-truncate': { tool: string; tool_use_id: string };
  'tool-call-dispatch': { tool: string; tool_use_id: string; parse_mode: string };
  'tool-call-reject': { tool: string; tool_use_id: string; reason: string };
  'tool-call-start': { tool: string; tool_use_id: string; parse_mode: string; attempt: number; write_claimed_at_ms?: number; killswitch_probe?: true };
  'tool-call-retry': { tool: string; tool_use_id: string; message: string; attempt: number };
  'tool-call-end': {
    tool: string;
    tool_use_id: string;
    ok: boolean;
    tool_result_status: string;
    parse_mode: string;
    duration_ms: number;
    error_code?: string;
    message?: string;
    /** An invalid output (answer-invalid-output.ts): why, and the output mode that answered it. */
    reason?: string;
    mode?: string;
    /** An invalid output answered by the tool's degraded output (safe mode skip_writes). */
    degraded?: true;
  };
  'tool-output-reject': { tool: string; tool_use_id: string; ok: false; error: string; reason: string };
  'tool-output-injection-flag': { tool: string; tool_use_id: string; patterns: string[]; source?: 'error' };
  // Safety.
  'killswitch-trip': {
    tool: string;
    reason: string;
    scope: string;
    scope_id: string;
    cause: string | null;
    tenants?: number;
    mode: 'read_only';
    window: { total: number; invalid: number; rate: number };
    window_ms: number;
    threshold: number;
    min_volume: number;
    at_ms: number;
    summary: string;
  };
  'killswitch-probe': { tool: string; outcome: string; mode: string; scope: string; scope_id: string };
  // Webhooks.
  'webhook-deliver': WebhookAttemptFields & { status: number };
  'webhook-fail': WebhookAttemptFields & { status: number | null; reason: string; final: boolean; response_excerpt?: string };
}

/** text-call-detect and fence-only-stop: the two-phase parser's telemetry (src/parsing/README.md). */
type TextCallDetectFields = {
  parse_mode: string;
  candidate_count: number;
  fallback_used: boolean;
  schema_validation: string;
  reason: string | null;
  recovery: boolean;
};

/** Every webhook attempt's event (src/workers/webhook-worker.ts). */
type WebhookAttemptFields = {
  webhook_event: string;
  delivery_id: string;
  attempt: number;
  attempts: number;
};

/** An event before the engine stamps it with run_id and step, with the fields its name declares.
 * Distributive: a union of names gives the union of their events. */
export type RunEventDraftOf<Name extends RunEventName> = Name extends RunEventName ? { event: Name; level?: RunEventLevel } & RunEventFields[Name] : never;

/** One event as the engine stores it, named by `event`, with the fields that event declares. */
export type RunEventOf<Name extends RunEventName> = Name extends RunEventName
  ? { run_id: string; step: number; event: Name; level?: RunEventLevel } & RunEventFields[Name]
  : never;

/** Any event: a union discriminated on `event` (narrow on it to read an event's fields). */
export type RunEvent = RunEventOf<RunEventName>;

/** Any event before the engine stamps it with run_id and step (the events of a transition). */
export type RunEventDraft = RunEventDraftOf<RunEventName>;

/** Stamps an event's fields with its name, run and step. The signature ties the fields to the name;
 * the cast is only because TypeScript cannot join a spread to a type parameter's conditional type. */
export function runEventOf<Name extends RunEventName>(
  runId: string,
  step: number,
  name: Name,
  fields: RunEventFields[Name] & { level?: RunEventLevel },
): RunEventOf<Name> {
  return { run_id: runId, step, event: name, ...fields } as RunEventOf<Name>;
}

/** The events whose fields name one tool call by `tool_use_id`. */
export const TOOL_CALL_EVENT_NAMES = [
  'tool-call-recover',
  'tool-call-truncate',
  'tool-call-dispatch',
  'tool-call-reject',
  'tool-call-start',
  'tool-call-retry',
  'tool-call-end',
  'tool-output-reject',
  'tool-output-injection-flag',
  'input-wait',
  'input-receive',
] as const satisfies ReadonlyArray<{ [Name in RunEventName]: RunEventFields[Name] extends { tool_use_id: string } ? Name : never }[RunEventName]>;

/**
 * Whether an event read back from a store (its name already checked against RUN_EVENT_NAMES, the
 * rest passed through) carries the fields readers rely on: `tool_use_id` for the events that name a
 * call (the API's tool-call views and the archive's call steps key on it), `status` (a terminal one) for `run-end`.
 * The engine's, the API's and the history's decoders refuse an event that does not, and type the
 * rest as RunEvent on the emitters' word.
 */
export function hasRunEventKeys(event: { event: RunEventName; [field: string]: unknown }): boolean {
  if ((TOOL_CALL_EVENT_NAMES as readonly string[]).includes(event.event)) return typeof event.tool_use_id === 'string';
  if (event.event === 'run-end') return (TERMINAL_STATUSES as readonly unknown[]).includes(event.status);
  return true;
}
