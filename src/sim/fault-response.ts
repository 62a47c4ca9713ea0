// The HTTP answer a fault produces, shaped like the real API's (status, error body, headers).
// `connection_reset`, `slow` and `latency` are not answers; the server handles them itself.
import { assertNever } from '../domain/assert-never.js';
import { createApiErrorBody, errorTypeForStatus, type ApiErrorBody } from './api-error.js';
import type { FaultSpec } from './fault-spec.js';

export interface FaultAnswer {
  status: number;
  headers: Record<string, string>;
  body: ApiErrorBody;
}

function httpDate(value: number | string, now: number): string {
  const date = typeof value === 'number' ? new Date(now + value * 1000) : new Date(value);
  return Number.isNaN(date.getTime()) ? new Date(now).toUTCString() : date.toUTCString();
}

function firstOfNextMonth(now: number): Date {
  const date = new Date(now);
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1));
}

/** The answer for an error fault, or null for faults that are not an HTTP answer. */
export function faultAnswer({ fault, requestId, now }: { fault: FaultSpec; requestId: string; now: number }): FaultAnswer | null {
  const answer = (status: number, defaultMessage: string, headers: Record<string, string> = {}, details?: Record<string, unknown>): FaultAnswer => {
    const message = fault.message ?? defaultMessage;
    const type = errorTypeForStatus({ status });
    return { status, headers, body: createApiErrorBody({ type, message, requestId, ...(details ? { details } : {}) }) };
  };
  switch (fault.kind) {
    case 'rate_limit': {
      const headers: Record<string, string> = {};
      if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
      if (fault.retryAfterMs !== undefined) headers['retry-after-ms'] = String(fault.retryAfterMs);
      if (fault.retryAfterDate !== undefined) headers['retry-after'] = httpDate(fault.retryAfterDate, now);
      return answer(429, 'Number of request tokens has exceeded your per-minute rate limit (simulated).', headers);
    }
    case 'spend_cap':
      return answer(
        429,
        'You have reached your specified API usage limits (simulated spend cap).',
        {},
        {
          error_code: 'enforced_spend_limit_reached',
        },
      );
    case 'server_error':
      return answer(fault.status ?? 500, 'Internal server error (simulated).');
    case 'overloaded':
    case 'overload_episode':
      return answer(529, 'Overloaded (simulated).');
    case 'spend_limit': {
      // The real wording (seen in 400 answers): "You have reached your specified API usage limits.
      // You will regain access on 2025-07-01 at 00:00 UTC." and "…specified workspace API usage limits…".
      const resumes = fault.resumesAt === undefined ? firstOfNextMonth(now) : new Date(fault.resumesAt);
      const when = Number.isNaN(resumes.getTime()) ? firstOfNextMonth(now) : resumes;
      const day = when.toISOString().slice(0, 10);
      const time = when.toISOString().slice(11, 16);
      const scope = fault.workspace === true ? 'workspace API usage limits' : 'API usage limits';
      return answer(400, `You have reached your specified ${scope}. You will regain access on ${day} at ${time} UTC.`);
    }
    case 'should_retry':
      return answer(fault.status, `Simulated ${fault.status} with x-should-retry: ${fault.shouldRetry}.`, {
        'x-should-retry': String(fault.shouldRetry),
      });
    case 'bad_request':
      return answer(400, 'Bad request (simulated).');
    case 'unauthorized':
      return answer(401, 'invalid x-api-key (simulated).');
    case 'connection_reset':
    case 'slow':
    case 'latency':
    case 'stream_error':
    case 'stream_stall':
      // stream_error: the server writes it into the stream (stream-message.ts), or answers
      // streamErrorAnswer() to a non-streaming request.
      return null;
    default:
      return assertNever(fault);
  }
}
