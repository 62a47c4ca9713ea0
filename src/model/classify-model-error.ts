// What a failed model call was, classified once, here, from the status, headers and body. What to
// do about it (retry, fail the run) is decided from that in src/agent/decide-model-retry.ts.
import { headerValue } from './rate-limit-headers.js';
import { modelErrorCode, type RunErrorCode } from '../domain/run-outcomes.js';

export type RetryOutcome =
  | { kind: 'rate_limited'; waitMs: number }
  | { kind: 'rate_limited_backoff' }
  /** 529 / overloaded_error, over HTTP or mid-stream: a fleet-wide, growing pause (model-call-pause.ts). */
  | { kind: 'overloaded' }
  | { kind: 'transient' }
  | { kind: 'spend_cap'; message: string }
  | { kind: 'fatal'; code: RunErrorCode; message: string };

export interface ModelCallFailure {
  /** The HTTP status; undefined for an `error` event that arrived inside a 200 stream. */
  status?: number | undefined;
  headers?: Headers | Record<string, string | null | undefined> | undefined;
  errorType?: string | undefined;
  errorCode?: string | undefined;
  message: string;
  /** No (complete) answer: connection refused/reset, the client timed out waiting for headers or
   * for the next stream event, or the stream ended before `message_stop`. */
  connectionFailure?: boolean;
  /** The API's `request-id` header, for support requests and for matching logs to the API's. */
  requestId?: string | null | undefined;
}

/**
 * The HTTP status an error type stands for, so an `error` event in the middle of a stream is
 * classified exactly like the same error answered before the stream began. The streaming docs
 * (build-with-claude/streaming, "Error events"): "we may occasionally send errors in the event
 * stream. For example, during periods of high usage, you may receive an overloaded_error, which
 * would normally correspond to an HTTP 529 in a non-streaming context." The pairs are the API's
 * error table (api/errors, "HTTP errors"); the SDK throws such an event as an APIError with no
 * status and the body's error.type (core/streaming.ts, `sse.event === 'error'`).
 */
export const STATUS_OF_ERROR_TYPE: Readonly<Record<string, number>> = Object.freeze({
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
  // Claude on Bedrock: the SDK turns an exception frame of the event stream into an `error` event
  // typed by the camel-cased exception (bedrock-sdk core/streaming.ts frameError); statuses from
  // the AWS API reference ResponseStream. serviceUnavailableException is Bedrock's form of
  // "overloaded" (src/sim/cloud-routes/cloud-error.ts), so it stands for 529; a stream error
  // Bedrock says to retry is a 500.
  throttlingException: 429,
  serviceUnavailableException: 529,
  internalServerException: 500,
  modelStreamErrorException: 500,
  modelTimeoutException: 408,
  validationException: 400,
});

/** Bedrock names its error in `x-amzn-errortype` (`ServiceUnavailableException:http://…`). */
function isBedrockServiceUnavailable(headers: ModelCallFailure['headers']): boolean {
  return headerValue(headers, 'x-amzn-errortype')?.startsWith('ServiceUnavailableException') ?? false;
}

/**
 * The user-set spend limit (Console → Limits) is answered with a 400 invalid_request_error whose
 * message begins with one of these — unlike the tier's own cap, a 429 with
 * details.error_code enforced_spend_limit_reached. Retrying either cannot help before an operator
 * raises the limit or the month rolls over (api/rate-limits, "Spend limits"). The real answer, as
 * reported in anthropics/claude-code#2127 and #38038: 400 {"type":"error","error":{"type":
 * "invalid_request_error","message":"You have reached your specified API usage limits. You will
 * regain access on 2026-04-01 at 00:00 UTC."}}.
 */
const SPEND_LIMIT_MESSAGE = /^You have reached your specified (workspace )?API usage limits/i;

/** Whether a failure is the user-set spend limit's 400 (see SPEND_LIMIT_MESSAGE). */
export function isSpendLimitMessage(message: string): boolean {
  return SPEND_LIMIT_MESSAGE.test(message.trim());
}

/**
 * A prompt over the model's context window, which no retry fixes (the transcript only grows): the
 * Messages API's 400 invalid_request_error "prompt is too long: 208310 tokens > 200000 maximum"
 * (build-with-claude/context-windows; src/sim/parse-messages-request.ts) and Bedrock's
 * ValidationException "Input is too long for requested model." (as reported in
 * aws-samples/assessment-generator#2, and mid-stream in aws-samples/bedrock-chat#95).
 */
const PROMPT_TOO_LONG_MESSAGE = /\bprompt is too long: \d+ tokens > \d+ maximum|\binput is too long for requested model/i;

/** Whether a failure's message says the prompt exceeds the context window (PROMPT_TOO_LONG_MESSAGE). */
export function isPromptTooLongMessage(message: string): boolean {
  return PROMPT_TOO_LONG_MESSAGE.test(message);
}

const TRANSIENT_STATUSES = new Set([408, 409, 500, 502, 503, 504]);
/** The longest a single retry-after may hold the whole queue. */
export const MAX_RATE_LIMIT_WAIT_MS = 120_000;

/** retry-after-ms, then retry-after as seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(headers: ModelCallFailure['headers'], now = Date.now()): number | null {
  const milliseconds = headerValue(headers, 'retry-after-ms');
  if (milliseconds !== null && milliseconds.trim() !== '') {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return Math.min(Math.ceil(value), MAX_RATE_LIMIT_WAIT_MS);
  }
  const retryAfter = headerValue(headers, 'retry-after');
  if (retryAfter === null || retryAfter.trim() === '') return null;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(Math.ceil(seconds * 1000), MAX_RATE_LIMIT_WAIT_MS);
  const date = Date.parse(retryAfter);
  if (Number.isNaN(date)) return null;
  return Math.min(Math.max(0, date - now), MAX_RATE_LIMIT_WAIT_MS);
}

export function classifyModelError(failure: ModelCallFailure, now = Date.now()): RetryOutcome {
  if (failure.connectionFailure) return { kind: 'transient' };
  // A mid-stream error event has no status of its own: it stands for its type's status. Its
  // headers are those of the 200 that opened the stream, so retry-after and x-should-retry there
  // say nothing about the error and are not read.
  const midStream = failure.status === undefined;
  const status = failure.status ?? (failure.errorType ? STATUS_OF_ERROR_TYPE[failure.errorType] : undefined);
  if (status === undefined) return { kind: 'transient' };
  const headers = midStream ? undefined : failure.headers;
  if (status === 429 && failure.errorCode === 'enforced_spend_limit_reached') {
    return { kind: 'spend_cap', message: failure.message };
  }
  if (status === 400 && isSpendLimitMessage(failure.message)) return { kind: 'spend_cap', message: failure.message };
  // A prompt over the context window (OpenAI-compatible servers: src/providers/openai-error.ts; the
  // Messages API and Bedrock: model-client.ts describeModelError) is a 400 that no retry fixes, and
  // the run's transcript only grows. On OpenAI-compatible servers an exhausted quota is a 429
  // that retrying cannot help ("You exceeded your current quota", OpenAI guides/error-codes).
  if (failure.errorCode === 'context_length_exceeded') return { kind: 'fatal', code: 'context_window_exceeded', message: failure.message };
  if (status === 429 && failure.errorCode === 'insufficient_quota') return { kind: 'fatal', code: 'model_billing_error', message: failure.message };
  const shouldRetry = headerValue(headers, 'x-should-retry');
  if (shouldRetry === 'false') {
    return { kind: 'fatal', code: modelErrorCode(failure.errorType), message: failure.message };
  }
  if (status === 429) {
    const waitMs = parseRetryAfter(headers, now);
    return waitMs === null ? { kind: 'rate_limited_backoff' } : { kind: 'rate_limited', waitMs };
  }
  // 529 is the API overloaded as a whole, not this request: every worker backs off together.
  if (status === 529 || failure.errorType === 'overloaded_error' || isBedrockServiceUnavailable(headers)) return { kind: 'overloaded' };
  if (shouldRetry === 'true' || TRANSIENT_STATUSES.has(status) || status >= 500) return { kind: 'transient' };
  return { kind: 'fatal', code: modelErrorCode(failure.errorType), message: failure.message };
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
