// The rate-limit headers of the OpenAI API (docs guides/rate-limits, "Rate limits in headers"):
// x-ratelimit-{limit,remaining,reset}-{requests,tokens}, resets given as the time until the bucket
// is full again ("1s", "6m0s"). They are read from the same token buckets as the Messages endpoint's
// anthropic-ratelimit-* headers (rate-limiter.ts); `tokens` is the tighter of the input and output
// buckets, as `anthropic-ratelimit-tokens-*` is.

/** A duration in the API's format: `120ms`, `1s`, `6m0s`, `1h2m3s`, `8.64s`. */
export function formatResetDuration(milliseconds: number): string {
  const whole = Math.max(0, Math.round(milliseconds));
  if (whole < 1000) return `${whole}ms`;
  const hours = Math.floor(whole / 3_600_000);
  const minutes = Math.floor((whole % 3_600_000) / 60_000);
  const seconds = Number(((whole % 60_000) / 1000).toFixed(3));
  return `${hours > 0 ? `${hours}h` : ''}${hours > 0 || minutes > 0 ? `${minutes}m` : ''}${seconds}s`;
}

/** The OpenAI headers for the buckets the anthropic-ratelimit-* headers describe. */
export function openAIRateLimitHeaders({ anthropicHeaders, now }: { anthropicHeaders: Record<string, string>; now: number }): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const dimension of ['requests', 'tokens'] as const) {
    const limit = anthropicHeaders[`anthropic-ratelimit-${dimension}-limit`];
    const remaining = anthropicHeaders[`anthropic-ratelimit-${dimension}-remaining`];
    const reset = anthropicHeaders[`anthropic-ratelimit-${dimension}-reset`];
    if (limit === undefined || remaining === undefined || reset === undefined) continue;
    headers[`x-ratelimit-limit-${dimension}`] = limit;
    headers[`x-ratelimit-remaining-${dimension}`] = remaining;
    const resetAt = Date.parse(reset);
    headers[`x-ratelimit-reset-${dimension}`] = formatResetDuration(Number.isNaN(resetAt) ? 0 : resetAt - now);
  }
  return headers;
}
