// A call that was not made (the admission wait, the pause) or failed: the pause of its scope is
// set already; the turn's own counters (overload since, rate-limit cycles) are noted;
// decideModelRetry says what to do. `fail_run` ends the run here; `retry` goes back to the worker
// for BullMQ, with the event that says what the turn waits for.
import type { ModelPauseScope, OverloadPause, PauseInForce } from '../model/model-call-pause.js';
import type { RetryOutcome } from '../model/classify-model-error.js';
import { decideModelRetry, type AdmissionWait, type RetryDecision } from './decide-model-retry.js';
import { done, type ModelTurnResult, type TurnContext } from './turn-context.js';

/** A retry-after longer than this many cycles in one turn fails the run instead of looping. */
export const MAX_RATE_LIMIT_CYCLES = 20;

export interface TurnRetryInput {
  context: Pick<TurnContext, 'deps' | 'run' | 'turn' | 'job'>;
  failure: RetryOutcome | { kind: 'paused' } | AdmissionWait;
  message: string;
  /** What BullMQ records for a retry that spends an attempt. */
  error: Error;
  /** The pause of the call's scope now in force (ms). */
  pauseMs: number;
  /** The pause the failure set, by Redis's clock, and the scope it holds. */
  pauseSet?: PauseInForce | OverloadPause | null;
  pauseScope?: ModelPauseScope | null;
}

/** Decides the retry of a call that did not succeed: the run's end, or the wait to hand BullMQ. */
export async function retryOrFailTurn({
  context,
  failure,
  message,
  error,
  pauseMs,
  pauseSet = null,
  pauseScope = null,
}: TurnRetryInput): Promise<ModelTurnResult> {
  const { deps, run, turn, job } = context;
  const { store, config } = deps;
  const now = Date.now();
  const overloadedForMs = failure.kind === 'overloaded' ? Math.max(0, now - (await store.noteTurnOverload(run.id, turn, now))) : 0;
  const rateLimitCycles = failure.kind === 'rate_limited' || failure.kind === 'rate_limited_backoff' ? await store.countRateLimitCycle(run.id, turn) : 0;
  const decision: RetryDecision = decideModelRetry({
    failure,
    message,
    attemptsMade: job.attemptsMade,
    maxAttempts: job.maxAttempts,
    pauseRemainingMs: pauseMs,
    rateLimitCycles,
    maxRateLimitCycles: MAX_RATE_LIMIT_CYCLES,
    overloadedForMs,
    overloadPatienceMs: config.BUILDFLEET_OVERLOAD_PATIENCE_MS,
    backoff: { baseMs: config.BUILDFLEET_RETRY_BASE_MS, rateLimitBaseMs: config.BUILDFLEET_RETRY_BASE_MS * 5, capMs: config.BUILDFLEET_RETRY_CAP_MS },
  });
  if (decision.kind === 'fail_run') {
    await store.endRun(run.id, turn, 'failed', { error: { code: decision.code, message: decision.message } });
    return done(`run_failed:${decision.code}`);
  }
  // Which pause the turn waits behind: its provider and its model's rate-limit class.
  const scopeFields = pauseScope ? { provider: pauseScope.provider, rate_limit_class: pauseScope.rateLimitClass } : {};
  // The pause in force, by Redis's clock (ms): no call of the scope passes its check strictly between the two.
  const windowFields = pauseSet ? { pause_from_ms: pauseSet.atMs, pause_until_ms: pauseSet.atMs + pauseSet.waitMs } : {};
  if (failure.kind === 'overloaded') {
    await store.appendEvent({
      run_id: run.id,
      step: turn,
      event: 'model-overload-wait',
      ...scopeFields,
      wait_ms: pauseMs || null,
      backoff_step: pauseSet && 'step' in pauseSet ? pauseSet.step : null,
      overloaded_for_ms: overloadedForMs,
      patience_ms: config.BUILDFLEET_OVERLOAD_PATIENCE_MS,
      ...windowFields,
    });
  } else if (failure.kind === 'rate_limited' || failure.kind === 'rate_limited_backoff') {
    await store.appendEvent({
      run_id: run.id,
      step: turn,
      event: 'model-rate-limit-wait',
      ...scopeFields,
      wait_ms: decision.delayMs,
      cycle: rateLimitCycles,
      ...windowFields,
      ...(failure.kind === 'rate_limited_backoff' ? { backoff: true } : {}),
    });
  } else if (failure.kind === 'admission_wait' && failure.limit !== 'booked') {
    // A booked call looking again whether its slot came early says nothing new: one event per wait.
    await store.appendEvent({
      run_id: run.id,
      step: turn,
      event: 'model-admission-wait',
      wait_ms: decision.delayMs,
      limit: failure.limit,
      booked: failure.booked,
      priority: failure.priority,
    });
  }
  return { kind: 'retry', delayMs: decision.delayMs, spendsAttempt: decision.spendsAttempt, error };
}
