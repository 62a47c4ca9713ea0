import { describe, expect, it } from 'vitest';
import { decideModelRetry, type RetryInput } from './decide-model-retry.js';

const base: RetryInput = {
  failure: { kind: 'transient' },
  message: 'boom',
  attemptsMade: 0,
  maxAttempts: 5,
  pauseRemainingMs: 0,
  rateLimitCycles: 0,
  maxRateLimitCycles: 20,
  overloadedForMs: 0,
  overloadPatienceMs: 60_000,
  backoff: { baseMs: 1000, rateLimitBaseMs: 5000, capMs: 30_000 },
  random: () => 1,
};

describe('decideModelRetry', () => {
  it('waits out the pause of its scope without spending an attempt', () => {
    expect(decideModelRetry({ ...base, failure: { kind: 'paused' }, pauseRemainingMs: 1234.2 })).toEqual({ kind: 'retry', delayMs: 1235, spendsAttempt: false });
  });

  it('waits for an admission slot: this job only, no attempt spent, whatever attempts it made', () => {
    const decision = decideModelRetry({ ...base, failure: { kind: 'admission_wait', waitMs: 420.5, limit: 'input_tokens', booked: true, priority: 'interactive' }, attemptsMade: 4, maxAttempts: 5, pauseRemainingMs: 9000 });
    expect(decision).toEqual({ kind: 'retry', delayMs: 421, spendsAttempt: false });
  });

  it('waits out an overload within the patience, and fails the run past it', () => {
    expect(decideModelRetry({ ...base, failure: { kind: 'overloaded' }, pauseRemainingMs: 2000, overloadedForMs: 59_999 })).toEqual({ kind: 'retry', delayMs: 2000, spendsAttempt: false });
    const failed = decideModelRetry({ ...base, failure: { kind: 'overloaded' }, overloadedForMs: 60_000 });
    expect(failed).toMatchObject({ kind: 'fail_run', code: 'model_unavailable' });
  });

  it("waits a 429's retry-after, and fails the run after too many cycles", () => {
    expect(decideModelRetry({ ...base, failure: { kind: 'rate_limited', waitMs: 3000 }, rateLimitCycles: 20 })).toEqual({ kind: 'retry', delayMs: 3000, spendsAttempt: false });
    expect(decideModelRetry({ ...base, failure: { kind: 'rate_limited', waitMs: 3000 }, rateLimitCycles: 21 })).toMatchObject({ kind: 'fail_run', code: 'rate_limit_exhausted' });
  });

  it('backs off a 429 that names no wait (Bedrock, Vertex, most OpenAI-compatible servers) in this job only, without spending an attempt, until the cycles run out', () => {
    const backoff = { ...base, failure: { kind: 'rate_limited_backoff' as const } };
    // Full jitter at its top (random 1): the rate-limit base doubled per cycle, capped.
    expect(decideModelRetry({ ...backoff, rateLimitCycles: 1, attemptsMade: 4 })).toEqual({ kind: 'retry', delayMs: 5000, spendsAttempt: false });
    expect(decideModelRetry({ ...backoff, rateLimitCycles: 2 })).toEqual({ kind: 'retry', delayMs: 10_000, spendsAttempt: false });
    expect(decideModelRetry({ ...backoff, rateLimitCycles: 20 })).toEqual({ kind: 'retry', delayMs: 30_000, spendsAttempt: false });
    expect(decideModelRetry({ ...backoff, rateLimitCycles: 21 })).toMatchObject({ kind: 'fail_run', code: 'rate_limit_exhausted' });
  });

  it('retries a transient failure with backoff until the attempts run out', () => {
    expect(decideModelRetry({ ...base, attemptsMade: 1 })).toEqual({ kind: 'retry', delayMs: 2000, spendsAttempt: true });
    expect(decideModelRetry({ ...base, attemptsMade: 4 })).toMatchObject({ kind: 'fail_run', code: 'model_unavailable', message: 'The model call failed 5 times: boom' });
  });

  it('fails the run at once on a fatal error or the spend limit', () => {
    expect(decideModelRetry({ ...base, failure: { kind: 'fatal', code: 'model_invalid_request_error', message: 'bad' } })).toEqual({ kind: 'fail_run', code: 'model_invalid_request_error', message: 'boom' });
    expect(decideModelRetry({ ...base, failure: { kind: 'spend_cap', message: 'limit' } })).toMatchObject({ kind: 'fail_run', code: 'billing_spend_cap' });
  });
});
