import { describe, expect, it } from 'vitest';
import { webhookAttemptOutcome } from './webhook-attempt-outcome.js';

describe('webhookAttemptOutcome', () => {
  it('retries no answer, 408, 429 and 5xx; everything else is final', () => {
    const kind = (answer: Parameters<typeof webhookAttemptOutcome>[0]) => webhookAttemptOutcome(answer).kind;
    expect([200, 204].map((status) => kind({ status }))).toEqual(['delivered', 'delivered']);
    expect([408, 429, 500, 502, 503].map((status) => kind({ status }))).toEqual(['retry', 'retry', 'retry', 'retry', 'retry']);
    expect([301, 302, 400, 401, 404, 410, 422].map((status) => kind({ status }))).toEqual(Array(7).fill('final'));
    expect(kind({ error: 'network', message: 'ECONNREFUSED' })).toBe('retry');
    expect(kind({ error: 'timeout', message: 'no answer' })).toBe('retry');
    expect(kind({ error: 'blocked', message: 'resolves to 10.0.0.1' })).toBe('final');
  });
});
