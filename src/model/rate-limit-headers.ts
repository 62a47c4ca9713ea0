// The API's rate-limit state as every Messages answer reports it (docs api/rate-limits, "Response
// headers"): `anthropic-ratelimit-{requests,input-tokens,output-tokens}-{limit,remaining,reset}`,
// the limit in effect, what remains of it now and when the bucket will be full again (RFC 3339).
// `anthropic-ratelimit-tokens-*` ("the most restrictive limit currently in effect") adds nothing
// the input and output headers do not say, so it is not read. A header that is absent or not a
// non-negative number reads as unknown: a proxy may strip them, and a bad value must not steer the
// limiter.

export interface RateLimitHeaderValue {
  /** The limit per minute, or null when the header is absent or unreadable. */
  limit: number | null;
  /** What remains of it when the API wrote the answer's headers, or null. */
  remaining: number | null;
}

export interface RateLimitHeaders {
  requests: RateLimitHeaderValue;
  inputTokens: RateLimitHeaderValue;
  outputTokens: RateLimitHeaderValue;
}

export type HeaderSource = Headers | Record<string, string | null | undefined>;

/** One header of an answer, from the SDK's Headers or a plain record (either case); null when absent. */
export function headerValue(headers: HeaderSource | null | undefined, name: string): string | null {
  if (!headers) return null;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  const record = headers as Record<string, string | null | undefined>;
  return record[name] ?? record[name.toLowerCase()] ?? null;
}

const NAMES = { requests: 'requests', inputTokens: 'input-tokens', outputTokens: 'output-tokens' } as const;

function read(headers: HeaderSource, name: string): number | null {
  const raw = headerValue(headers, name);
  if (raw === null || raw.trim() === '') return null;
  const value = Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : null;
}

/** The rate-limit headers of an answer (200 or error); null when it carries none of them. */
export function readRateLimitHeaders(headers: HeaderSource | null | undefined): RateLimitHeaders | null {
  if (!headers) return null;
  const value = (dimension: keyof typeof NAMES): RateLimitHeaderValue => ({
    limit: read(headers, `anthropic-ratelimit-${NAMES[dimension]}-limit`),
    remaining: read(headers, `anthropic-ratelimit-${NAMES[dimension]}-remaining`),
  });
  const result: RateLimitHeaders = { requests: value('requests'), inputTokens: value('inputTokens'), outputTokens: value('outputTokens') };
  const any = Object.values(result).some((entry) => entry.limit !== null || entry.remaining !== null);
  return any ? result : null;
}
