// The simulated rate limits (docs api/rate-limits):
// - "We use the token bucket algorithm": capacity is "continuously replenished up to your maximum
//   limit, rather than being reset at fixed intervals"; limits are per minute, per API key here
//   (per organization in the real API) and per model class ("rate limits are applied separately for
//   each model"; Opus 4.x share one limit, Sonnet 4.x one, Haiku 4.x one).
// - requests per minute, input tokens per minute and output tokens per minute. Input counts
//   `input_tokens` + `cache_creation_input_tokens`; `cache_read_input_tokens` do not count, except
//   for the older models marked † in the docs' table (Haiku 3.x here). Output is "estimated based on
//   max_tokens at the beginning of each request, and the estimate is adjusted at the end of the
//   request to reflect the actual number of output tokens used".
// - every answer carries `anthropic-ratelimit-{requests,input-tokens,output-tokens,tokens}-
//   {limit,remaining,reset}` (reset: "the time when the rate limit will be fully replenished,
//   provided in RFC 3339 format"; `tokens-*`: "the most restrictive limit currently in effect");
//   a request over a limit gets 429 rate_limit_error with `retry-after` ("the number of seconds to
//   wait until you can retry the request"), and its message names the limit, as the real one does.
import type { RateLimitClass } from './model-catalog.js';

export interface RateLimits {
  requestsPerMinute: number;
  inputTokensPerMinute: number;
  outputTokensPerMinute: number;
}

/** Generous enough that tests and benchmarks never meet them unless they lower them on purpose. */
export const DEFAULT_RATE_LIMITS: RateLimits = Object.freeze({
  requestsPerMinute: 100_000,
  inputTokensPerMinute: 200_000_000,
  outputTokensPerMinute: 200_000_000,
});

type Dimension = 'requests' | 'input-tokens' | 'output-tokens';

const LIMIT_OF: Readonly<Record<Dimension, keyof RateLimits>> = {
  requests: 'requestsPerMinute',
  'input-tokens': 'inputTokensPerMinute',
  'output-tokens': 'outputTokensPerMinute',
};
const UNIT_OF: Readonly<Record<Dimension, string>> = {
  requests: 'requests',
  'input-tokens': 'input tokens',
  'output-tokens': 'output tokens',
};
const MINUTE_MS = 60_000;

interface Bucket {
  level: number;
  updatedAtMs: number;
}

export interface RateLimitRequest {
  apiKey: string;
  rateLimitClass: RateLimitClass;
  /** The model id, named in a 429's message. */
  model: string;
  /** Tokens that count toward the input limit. */
  inputTokens: number;
  /** `max_tokens`: the output estimate reserved until the answer settles it. */
  maxOutputTokens: number;
}

export interface RateLimitReservation {
  /** Replaces the output estimate with what the answer really used. */
  settle({ outputTokens }: { outputTokens: number }): void;
}

export type RateLimitDecision =
  | { admitted: true; headers: Record<string, string>; reservation: RateLimitReservation }
  | { admitted: false; headers: Record<string, string>; retryAfterSeconds: number; message: string };

function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

/** Token buckets for one simulator; limits can change at runtime (`PUT /_sim/rate-limits`). */
export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #clock: () => number;
  #limits: RateLimits;

  constructor({ limits = DEFAULT_RATE_LIMITS, clock = Date.now }: { limits?: Partial<RateLimits>; clock?: () => number } = {}) {
    this.#limits = { ...DEFAULT_RATE_LIMITS, ...limits };
    this.#clock = clock;
  }

  /** The limits in effect. */
  limits(): RateLimits {
    return { ...this.#limits };
  }

  /** Changes limits; a bucket above its new capacity is cut down to it, one below refills at the new rate. */
  setLimits(limits: Partial<RateLimits>): RateLimits {
    const now = this.#clock();
    for (const [key, bucket] of this.#buckets) this.#refill(bucket, this.#dimensionOf(key), now);
    this.#limits = { ...this.#limits, ...limits };
    for (const [key, bucket] of this.#buckets) bucket.level = Math.min(bucket.level, this.#capacity(this.#dimensionOf(key)));
    return this.limits();
  }

  /** Fills every bucket; returns how many there were. */
  reset(): number {
    const size = this.#buckets.size;
    this.#buckets.clear();
    return size;
  }

  /** The headers for an answer that consumed nothing (an error before admission). */
  peekHeaders({ apiKey, rateLimitClass }: { apiKey: string; rateLimitClass: RateLimitClass }): Record<string, string> {
    return this.#headers(apiKey, rateLimitClass, this.#clock());
  }

  /** Takes one request and its tokens from the buckets, or says how long to wait. */
  admit(request: RateLimitRequest): RateLimitDecision {
    const now = this.#clock();
    const needs: Array<[Dimension, number]> = [
      ['requests', 1],
      ['input-tokens', request.inputTokens],
      ['output-tokens', request.maxOutputTokens],
    ];
    for (const [dimension, amount] of needs) {
      const bucket = this.#bucket(request.apiKey, request.rateLimitClass, dimension, now);
      if (bucket.level >= amount) continue;
      const capacity = this.#capacity(dimension);
      // A request larger than the whole bucket can never pass; a minute is the honest wait.
      const waitMs = amount > capacity ? MINUTE_MS : ((amount - bucket.level) / capacity) * MINUTE_MS;
      return {
        admitted: false,
        headers: this.#headers(request.apiKey, request.rateLimitClass, now),
        retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
        message:
          `This request would exceed your organization's rate limit of ${formatCount(capacity)} ${UNIT_OF[dimension]} per minute ` +
          `(org: simulated, model: ${request.model}). For details, refer to: https://docs.claude.com/en/api/rate-limits. ` +
          'You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, ' +
          'or try again later. You may also contact sales at https://claude.com/contact-sales to discuss your options for a rate limit increase.',
      };
    }
    for (const [dimension, amount] of needs) this.#bucket(request.apiKey, request.rateLimitClass, dimension, now).level -= amount;
    const outputBucketKey = this.#key(request.apiKey, request.rateLimitClass, 'output-tokens');
    let settled = false;
    const reservation: RateLimitReservation = {
      settle: ({ outputTokens }) => {
        if (settled) return;
        settled = true;
        const bucket = this.#buckets.get(outputBucketKey);
        if (!bucket) return;
        this.#refill(bucket, 'output-tokens', this.#clock());
        bucket.level = Math.min(this.#capacity('output-tokens'), bucket.level + request.maxOutputTokens - outputTokens);
      },
    };
    return { admitted: true, headers: this.#headers(request.apiKey, request.rateLimitClass, now), reservation };
  }

  #key(apiKey: string, rateLimitClass: RateLimitClass, dimension: Dimension): string {
    return `${dimension}\u0000${rateLimitClass}\u0000${apiKey}`;
  }

  #dimensionOf(key: string): Dimension {
    return key.slice(0, key.indexOf('\u0000')) as Dimension;
  }

  #capacity(dimension: Dimension): number {
    return this.#limits[LIMIT_OF[dimension]];
  }

  #refill(bucket: Bucket, dimension: Dimension, now: number): void {
    const capacity = this.#capacity(dimension);
    const elapsed = Math.max(0, now - bucket.updatedAtMs);
    bucket.level = Math.min(capacity, bucket.level + (elapsed / MINUTE_MS) * capacity);
    bucket.updatedAtMs = now;
  }

  #bucket(apiKey: string, rateLimitClass: RateLimitClass, dimension: Dimension, now: number): Bucket {
    const key = this.#key(apiKey, rateLimitClass, dimension);
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = { level: this.#capacity(dimension), updatedAtMs: now };
      this.#buckets.set(key, bucket);
    }
    this.#refill(bucket, dimension, now);
    return bucket;
  }

  #headers(apiKey: string, rateLimitClass: RateLimitClass, now: number): Record<string, string> {
    const headers: Record<string, string> = {};
    const state = (dimension: Dimension) => {
      const capacity = this.#capacity(dimension);
      const bucket = this.#bucket(apiKey, rateLimitClass, dimension, now);
      const level = Math.max(0, bucket.level);
      const fullAtMs = now + Math.ceil(((capacity - level) / capacity) * MINUTE_MS);
      return { limit: capacity, remaining: Math.floor(level), reset: new Date(fullAtMs).toISOString().replace(/\.\d{3}Z$/, 'Z') };
    };
    const states = { requests: state('requests'), 'input-tokens': state('input-tokens'), 'output-tokens': state('output-tokens') };
    for (const [dimension, value] of Object.entries(states)) {
      headers[`anthropic-ratelimit-${dimension}-limit`] = String(value.limit);
      headers[`anthropic-ratelimit-${dimension}-remaining`] = String(value.remaining);
      headers[`anthropic-ratelimit-${dimension}-reset`] = value.reset;
    }
    const tightest = states['input-tokens'].remaining <= states['output-tokens'].remaining ? states['input-tokens'] : states['output-tokens'];
    headers['anthropic-ratelimit-tokens-limit'] = String(tightest.limit);
    headers['anthropic-ratelimit-tokens-remaining'] = String(tightest.remaining);
    headers['anthropic-ratelimit-tokens-reset'] = tightest.reset;
    return headers;
  }
}
