// What a tool call does about a failure: the one place its retry intent is decided, beside the
// model turn's decideModelRetry (src/agent/decide-model-retry.ts). Pure — every input is passed
// in — so each branch is a unit test. Tool failures are data (an is_error result the model reads,
// or the run's end or safe mode for an output that broke its contract); infrastructure failures
// go back to the queue, and the tool worker maps `retry` and `defer` onto BullMQ in one place
// (src/workers/tool-worker.ts): a thrown error spends an attempt and takes the queue's backoff, a
// delay spends none.
import { assertNever } from '../domain/assert-never.js';
import { quoteUntrusted } from '../domain/quote-untrusted.js';
import type { ToolErrorCode } from '../domain/tool-error-codes.js';
import type { ToolOutputMode } from '../domain/tool-output-modes.js';

/** The failure, classified once (classify-tool-failure.ts). */
export type ToolFailure =
  /** The tool refused or failed as a tool (ToolError): its code and message are the result. */
  | { kind: 'tool_error'; code: ToolErrorCode; message: string }
  /** The tool's output broke its contract (ToolOutputInvalid); `mode` is the tool's output mode. */
  | { kind: 'output_invalid'; mode: ToolOutputMode }
  /** An effect's claim or a write tool's result is not on a replica yet (ClaimNotDurableError). */
  | { kind: 'claim_not_durable' }
  /** Anything else the tool threw; `timedOut` when the call's timeout had aborted it. */
  | { kind: 'tool_crash'; message: string; timedOut: boolean }
  /** Anything thrown around the tool rather than by it: its output validator, Redis, the job. */
  | { kind: 'infrastructure' };

export interface ToolFailureInput {
  failure: ToolFailure;
  toolName: string;
  /** Whether the tool may run again after it started (its definition's `idempotent`). */
  idempotent: boolean;
  /** Attempts of this job made before this one (BullMQ attemptsMade) and its limit. */
  attemptsMade: number;
  maxAttempts: number;
  /** Since the job was created, and whether the worker can move it to the delayed set (it holds the job's lock token). */
  jobAgeMs: number;
  mayDelay: boolean;
  /** How long a call whose claim is not durable waits for a replica, counted from the job's
   * creation, and how often it looks again. */
  notDurablePatienceMs: number;
  notDurableRetryMs: number;
}

export type ToolFailureDecision =
  /** Record an is_error result with this code: the model reads it, the run goes on. */
  | { kind: 'result_error'; code: ToolErrorCode; message: string }
  /** A fail_closed contract: the run ends failed, code invalid_tool_output. */
  | { kind: 'fail_run'; code: 'invalid_tool_output' }
  /** A degrade contract: the run goes on in skip_writes safe mode (last-known-good output or an is_error result). */
  | { kind: 'degrade' }
  /** Throw to the queue: an attempt spent, BullMQ's backoff; `announce` writes `tool-call-retry` first. */
  | { kind: 'retry'; announce: boolean }
  /** Wait without spending an attempt: the job goes back to the delayed set for `delayMs`. */
  | { kind: 'defer'; delayMs: number };

/** How long a tool job whose claim or result is not on a replica yet waits for one, counted from
 * the job's creation (a killed primary's node rejoins as a replica in 5–6 s on the local cluster;
 * docs/scaling.md#failover), and how often it looks again. */
export const NOT_DURABLE_PATIENCE_MS = 120_000;
export const NOT_DURABLE_RETRY_MS = 1_000;

/** The run error code of a run stopped by a fail_closed contract. */
export const INVALID_TOOL_OUTPUT_RUN_ERROR = 'invalid_tool_output';

export function decideToolFailure(input: ToolFailureInput): ToolFailureDecision {
  const { failure } = input;
  switch (failure.kind) {
    case 'tool_error':
      return { kind: 'result_error', code: failure.code, message: failure.message };
    case 'output_invalid':
      return failure.mode === 'fail_closed' ? { kind: 'fail_run', code: INVALID_TOOL_OUTPUT_RUN_ERROR } : { kind: 'degrade' };
    case 'claim_not_durable':
      // Never a result: the effect's claim stands (a deployment recorded, a live pointer set) and
      // only its replica is missing. Recorded as a failed call it would be repeated by the model
      // under a new id, a second effect; so the job waits, spending no attempt, for as long as a
      // replica usually takes to come back, then retries as any infrastructure failure.
      if (input.mayDelay && input.jobAgeMs < input.notDurablePatienceMs) return { kind: 'defer', delayMs: input.notDurableRetryMs };
      return { kind: 'retry', announce: false };
    case 'tool_crash':
      if (failure.timedOut && !input.idempotent) {
        return {
          kind: 'result_error',
          code: 'tool_outcome_unknown',
          message: `${input.toolName} timed out after it started; it is not safe to run again, so its outcome is unknown.`,
        };
      }
      if (input.attemptsMade + 1 >= input.maxAttempts) {
        return {
          kind: 'result_error',
          code: 'tool_infrastructure_error',
          message: `${input.toolName} failed ${input.attemptsMade + 1} times: ${quoteUntrusted(failure.message)}`,
        };
      }
      return { kind: 'retry', announce: true };
    case 'infrastructure':
      return { kind: 'retry', announce: false };
    default:
      return assertNever(failure);
  }
}
