// What a model turn does about a call it could not make or that failed: the one place retry intent
// is decided. Pure — every input is passed in — so each branch is a unit test; the turn ends the
// run on `fail_run`, and the model worker maps `retry` onto BullMQ (a wait that spends no attempt
// delays only this job, one that does is a thrown error with this delay as its backoff). No wait
// is the queue's rate limit: BullMQ's is one key for the whole queue, and every wait here belongs
// to one provider and rate-limit class (model-call-pause.ts) or to this job alone.
import type { RunErrorCode } from '../domain/run-outcomes.js';
import { assertNever } from '../domain/assert-never.js';
import { backoffDelay, type BackoffPolicy, type RetryOutcome } from '../model/classify-model-error.js';

export type RetryDecision = { kind: 'retry'; delayMs: number; spendsAttempt: boolean } | { kind: 'fail_run'; code: RunErrorCode; message: string };

/** The shared limiter (src/model/model-rate-limiter.ts) had no capacity for this call yet: come
 * back in `waitMs`. Not a failure of the fleet — other calls may go meanwhile — so only this job
 * waits, and it spends no attempt. */
export interface AdmissionWait {
  kind: 'admission_wait';
  waitMs: number;
  /** For the `model-admission-wait` event: the bucket it waits for, whether a slot is booked for
   * it, and the run's priority. */
  limit: string;
  booked: boolean;
  priority: string;
}

export interface RetryInput {
  /** Why the call did not succeed: the classified failure, or `paused` (the pause of the call's
   * provider and rate-limit class was in force right before the call, so none was made). */
  failure: RetryOutcome | { kind: 'paused' } | AdmissionWait;
  message: string;
  /** Attempts of this job made before this one (BullMQ attemptsMade) and its limit. */
  attemptsMade: number;
  maxAttempts: number;
  /** The pause of the call's scope now in force (ms): what a paused, rate-limited or overloaded turn waits. */
  pauseRemainingMs: number;
  /** Rate-limit cycles of this turn so far, this one included (rate_limited and rate_limited_backoff). */
  rateLimitCycles: number;
  maxRateLimitCycles: number;
  /** How long this turn has met an overloaded API, and how long it may (overloaded only). */
  overloadedForMs: number;
  overloadPatienceMs: number;
  backoff: BackoffPolicy;
  random?: () => number;
}

export function decideModelRetry(input: RetryInput): RetryDecision {
  const { failure } = input;
  const wait = (delayMs: number): RetryDecision => ({ kind: 'retry', delayMs: Math.max(1, Math.ceil(delayMs)), spendsAttempt: false });
  switch (failure.kind) {
    case 'paused':
      return wait(input.pauseRemainingMs);
    case 'admission_wait':
      return wait(failure.waitMs);
    case 'overloaded':
      // The scope's pause is already set and grows while the episode lasts; only the turn's
      // patience limits the waiting, not a number of attempts.
      if (input.overloadedForMs >= input.overloadPatienceMs) {
        return {
          kind: 'fail_run',
          code: 'model_unavailable',
          message:
            `The model API stayed overloaded for ${Math.round(input.overloadedForMs / 1000)} s of ` +
            `this turn (patience ${Math.round(input.overloadPatienceMs / 1000)} s): ${input.message}`,
        };
      }
      return wait(input.pauseRemainingMs);
    case 'rate_limited':
      if (input.rateLimitCycles > input.maxRateLimitCycles) {
        return { kind: 'fail_run', code: 'rate_limit_exhausted', message: `The model stayed rate limited for ${input.rateLimitCycles} retry-after cycles.` };
      }
      return wait(Math.max(failure.waitMs, input.pauseRemainingMs));
    case 'rate_limited_backoff':
      // A 429 that names no wait: the rule on Bedrock (ThrottlingException), Vertex
      // (RESOURCE_EXHAUSTED) and most OpenAI-compatible servers, not an Anthropic oddity. A storm of
      // them is the provider's limit, not the call failing, so like a retry-after cycle it spends no
      // attempt (five in a row would otherwise end the run) and is bounded by the same cycle count;
      // the wait grows with the cycles on the rate-limit base, jittered. Each run backs off on its
      // own: a run's backoff must not overwrite another's, so it sets no pause.
      if (input.rateLimitCycles > input.maxRateLimitCycles) {
        return {
          kind: 'fail_run',
          code: 'rate_limit_exhausted',
          message: `The model stayed rate limited for ${input.rateLimitCycles} backoff cycles: ${input.message}`,
        };
      }
      return { kind: 'retry', delayMs: backoffDelay(Math.max(1, input.rateLimitCycles), failure, input.backoff, input.random), spendsAttempt: false };
    case 'fatal':
      return { kind: 'fail_run', code: failure.code, message: input.message };
    case 'spend_cap':
      return { kind: 'fail_run', code: 'billing_spend_cap', message: input.message };
    case 'transient':
      if (input.attemptsMade + 1 >= input.maxAttempts) {
        return { kind: 'fail_run', code: 'model_unavailable', message: `The model call failed ${input.attemptsMade + 1} times: ${input.message}` };
      }
      return { kind: 'retry', delayMs: backoffDelay(input.attemptsMade + 1, failure, input.backoff, input.random), spendsAttempt: true };
    default:
      return assertNever(failure);
  }
}
