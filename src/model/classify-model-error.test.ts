import { describe, expect, it } from 'vitest';
import { backoffDelay, classifyModelError, MAX_RATE_LIMIT_WAIT_MS, parseRetryAfter } from './classify-model-error.js';

describe('classifyModelError', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');

  it('429 honours retry-after-ms, then retry-after seconds, then an HTTP date', () => {
    expect(classifyModelError({ status: 429, headers: { 'retry-after-ms': '1500' }, message: '' }, now)).toEqual({ kind: 'rate_limited', waitMs: 1500 });
    expect(classifyModelError({ status: 429, headers: { 'retry-after': '2' }, message: '' }, now)).toEqual({ kind: 'rate_limited', waitMs: 2000 });
    expect(classifyModelError({ status: 429, headers: { 'retry-after': 'Sun, 22 Nov 2026 10:00:03 GMT' }, message: '' }, now)).toEqual({
      kind: 'rate_limited',
      waitMs: 3000,
    });
    expect(classifyModelError({ status: 429, headers: new Headers({ 'retry-after-ms': '10', 'retry-after': '9' }), message: '' }, now)).toEqual({
      kind: 'rate_limited',
      waitMs: 10,
    });
  });

  it('429 without a readable retry-after backs off with the larger base; waits are capped', () => {
    expect(classifyModelError({ status: 429, headers: {}, message: '' })).toEqual({ kind: 'rate_limited_backoff' });
    expect(classifyModelError({ status: 429, headers: { 'retry-after': 'soon' }, message: '' })).toEqual({ kind: 'rate_limited_backoff' });
    expect(parseRetryAfter({ 'retry-after': '100000' })).toBe(MAX_RATE_LIMIT_WAIT_MS);
  });

  it('a spend cap is never retried', () => {
    expect(classifyModelError({ status: 429, errorCode: 'enforced_spend_limit_reached', headers: { 'retry-after': '1' }, message: 'cap' })).toEqual({
      kind: 'spend_cap',
      message: 'cap',
    });
  });

  it('5xx, timeouts and connection errors are transient', () => {
    for (const status of [500, 502, 503, 504]) expect(classifyModelError({ status, message: '' }).kind).toBe('transient');
    expect(classifyModelError({ connectionFailure: true, message: 'reset' }).kind).toBe('transient');
  });

  it('529 and overloaded_error are overload, for the fleet-wide backoff', () => {
    expect(classifyModelError({ status: 529, errorType: 'overloaded_error', message: 'Overloaded' })).toEqual({ kind: 'overloaded' });
    expect(classifyModelError({ status: 529, message: '' })).toEqual({ kind: 'overloaded' });
  });

  it('a mid-stream error event is classified like the same HTTP status', () => {
    // The stream's own headers (a 200's) say nothing about the error: retry-after is not read.
    const streamHeaders = new Headers({ 'retry-after': '30', 'request-id': 'req_1' });
    const midStream = (errorType: string, message = 'mid-stream') => classifyModelError({ status: undefined, headers: streamHeaders, errorType, message });
    expect(midStream('overloaded_error')).toEqual({ kind: 'overloaded' });
    expect(midStream('api_error').kind).toBe('transient');
    expect(midStream('timeout_error').kind).toBe('transient');
    expect(midStream('rate_limit_error')).toEqual({ kind: 'rate_limited_backoff' });
    expect(midStream('invalid_request_error', 'bad')).toEqual({ kind: 'fatal', code: 'model_invalid_request_error', message: 'bad' });
    expect(midStream('authentication_error').kind).toBe('fatal');
    // An unknown type with no status: nothing says it is permanent.
    expect(midStream('some_future_error').kind).toBe('transient');
  });

  it('the user-set spend limit (a 400) is a spend cap, like the tier cap (a 429)', () => {
    for (const message of [
      'You have reached your specified API usage limits. You will regain access on 2026-04-01 at 00:00 UTC.',
      'You have reached your specified workspace API usage limits. You will regain access on 2026-04-01 at 00:00 UTC.',
    ]) {
      expect(classifyModelError({ status: 400, errorType: 'invalid_request_error', message })).toEqual({ kind: 'spend_cap', message });
    }
    expect(classifyModelError({ status: 400, errorType: 'invalid_request_error', message: 'messages: usage limits are fine' }).kind).toBe('fatal');
  });

  it('other 4xx are fatal with the API error type', () => {
    for (const status of [400, 401, 403, 404, 413, 422]) {
      expect(classifyModelError({ status, errorType: 'invalid_request_error', message: 'bad' })).toEqual({
        kind: 'fatal',
        code: 'model_invalid_request_error',
        message: 'bad',
      });
    }
  });

  it('x-should-retry overrides the status rule both ways', () => {
    expect(classifyModelError({ status: 400, headers: { 'x-should-retry': 'true' }, message: '' }).kind).toBe('transient');
    expect(classifyModelError({ status: 503, headers: { 'x-should-retry': 'false' }, errorType: 'api_error', message: '' }).kind).toBe('fatal');
    expect(classifyModelError({ status: 429, headers: { 'x-should-retry': 'false', 'retry-after': '1' }, message: '' }).kind).toBe('fatal');
  });
});

describe('backoffDelay', () => {
  it('grows exponentially with full-range jitter in [cap/2, cap], capped at 30 s', () => {
    const policy = { baseMs: 1000, rateLimitBaseMs: 5000, capMs: 30_000 };
    expect(backoffDelay(1, { kind: 'transient' }, policy, () => 0)).toBe(500);
    expect(backoffDelay(1, { kind: 'transient' }, policy, () => 1)).toBe(1000);
    expect(backoffDelay(3, { kind: 'transient' }, policy, () => 1)).toBe(4000);
    expect(backoffDelay(10, { kind: 'transient' }, policy, () => 1)).toBe(30_000);
    expect(backoffDelay(1, { kind: 'rate_limited_backoff' }, policy, () => 1)).toBe(5000);
  });
});
