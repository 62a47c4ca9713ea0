// Retry intent for a failed model call, decided once, here, from the status, headers and body.
// The model worker maps the outcome onto BullMQ (queue-wide rate limit, backoff, or no retry).

export type RetryOutcome =
  | { kind: 'rate_limited'; waitMs: number }
  | { kind: 'rate_limited_backoff' }
  | { kind: 'transient' }
  | { kind: 'spend_cap'; message: string }
  | { kind: 'fatal'; code: string; message: string };

export interface ModelCallFailure {
  status?: number | undefined;
  headers?: Headers | Record<string, string | null | undefined> | undefined;
  errorType?: string | undefined;
  errorCode?: string | undefined;
  message: string;
  /** No HTTP answer: connection refused/reset, or the client timed out. */
  connectionFailure?: boolean;
}

const TRANSIENT_STATUSES = new Set([408, 409, 500, 502, 503, 504, 529]);
/** The longest a single retry-after may hold the whole queue. */
export const MAX_RATE_LIMIT_WAIT_MS = 120_000;

function header(headers: ModelCallFailure['headers'], name: string): string | null {
  if (!headers) return null;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  const record = headers as Record<string, string | null | undefined>;
  return record[name] ?? record[name.toLowerCase()] ?? null;
}

/** retry-after-ms, then retry-after as seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(headers: ModelCallFailure['headers'], now = Date.now()): number | null {
  const milliseconds = header(headers, 'retry-after-ms');
  if (milliseconds !== null && milliseconds.trim() !== '') {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return Math.min(Math.ceil(value), MAX_RATE_LIMIT_WAIT_MS);
  }
  const retryAfter = header(headers, 'retry-after');
  if (retryAfter === null || retryAfter.trim() === '') return null;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(Math.ceil(seconds * 1000), MAX_RATE_LIMIT_WAIT_MS);
  const date = Date.parse(retryAfter);
  if (Number.isNaN(date)) return null;
  return Math.min(Math.max(0, date - now), MAX_RATE_LIMIT_WAIT_MS);
}

export function classifyModelError(failure: ModelCallFailure, now = Date.now()): RetryOutcome {
  if (failure.connectionFailure || failure.status === undefined) return { kind: 'transient' };
  const status = failure.status;
  if (status === 429 && failure.errorCode === 'enforced_spend_limit_reached') {
    return { kind: 'spend_cap', message: failure.message };
  }
  const shouldRetry = header(failure.headers, 'x-should-retry');
  if (shouldRetry === 'false') {
    return { kind: 'fatal', code: `model_${failure.errorType ?? `http_${status}`}`, message: failure.message };
  }
  if (status === 429) {
    const waitMs = parseRetryAfter(failure.headers, now);
    return waitMs === null ? { kind: 'rate_limited_backoff' } : { kind: 'rate_limited', waitMs };
  }
  if (shouldRetry === 'true' || TRANSIENT_STATUSES.has(status) || status >= 500) return { kind: 'transient' };
  return { kind: 'fatal', code: `model_${failure.errorType ?? `http_${status}`}`, message: failure.message };
}

export interface BackoffPolicy {
  baseMs: number;
  rateLimitBaseMs: number;
  capMs: number;
}
export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1000, rateLimitBaseMs: 5000, capMs: 30_000 };

/** Exponential backoff with full jitter, capped: attempt 1 → up to base, 2 → up to 2×base … */
export function backoffDelay(attempt: number, outcome: RetryOutcome, policy: BackoffPolicy = DEFAULT_BACKOFF, random = Math.random): number {
  const base = outcome.kind === 'rate_limited_backoff' ? policy.rateLimitBaseMs : policy.baseMs;
  const ceiling = Math.min(policy.capMs, base * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
