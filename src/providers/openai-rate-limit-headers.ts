// OpenAI's rate-limit headers (docs platform.openai.com/docs/guides/rate-limits, "Rate limits in
// headers"): x-ratelimit-{limit,remaining,reset}-{requests,tokens}, the resets as durations such as
// `1s`, `6m0s` or `12ms`. They are read for two things: a 429 without retry-after waits until the
// exhausted limit resets, and the admission limiter (docs/admission.md) learns the requests limit.
// Its tokens are one limit over input and output together, which the limiter's separate input and
// output buckets cannot take, so they are not passed on. vLLM, llama.cpp's server, Ollama and SGLang
// send none of these headers; a gateway in front of them (LiteLLM, OpenRouter) may.
import { headerValue, type HeaderSource } from '../model/rate-limit-headers.js';

const UNIT_MS: Readonly<Record<string, number>> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000_001 };

/** A duration in the headers' format (Go's time.Duration text: `1s`, `6m0s`, `1h2m3.5s`, `12ms`)
 * in milliseconds, or null when it is not one. */
export function parseOpenAiDuration(text: string | null): number | null {
  if (text === null) return null;
  const trimmed = text.trim();
  if (!/^(\d+(\.\d+)?(h|ms|m|s|us|µs|ns))+$/.test(trimmed)) return null;
  let total = 0;
  for (const match of trimmed.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g)) total += Number(match[1]) * UNIT_MS[match[2]!]!;
  return Math.ceil(total);
}

function count(headers: HeaderSource, name: string): number | null {
  const raw = headerValue(headers, name);
  if (raw === null || raw.trim() === '') return null;
  const value = Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : null;
}

/** How long until the exhausted limit resets (the one whose remaining is 0, else the later of
 * the two resets), in ms; null when the headers say nothing of it. */
export function rateLimitResetMs(headers: HeaderSource | null | undefined): number | null {
  if (!headers) return null;
  const requests = parseOpenAiDuration(headerValue(headers, 'x-ratelimit-reset-requests'));
  const tokens = parseOpenAiDuration(headerValue(headers, 'x-ratelimit-reset-tokens'));
  const exhausted = [
    count(headers, 'x-ratelimit-remaining-requests') === 0 ? requests : null,
    count(headers, 'x-ratelimit-remaining-tokens') === 0 ? tokens : null,
  ].filter((value): value is number => value !== null);
  const candidates = exhausted.length > 0 ? exhausted : [requests, tokens].filter((value): value is number => value !== null);
  return candidates.length > 0 ? Math.max(...candidates) : null;
}

/**
 * The headers as the fleet reads them: the server's own, plus `retry-after-ms` from the reset of
 * the exhausted limit when the server sent no retry-after of its own (classify-model-error.ts
 * parseRetryAfter reads it), plus the requests limit under the anthropic-ratelimit-requests-* names
 * the admission limiter reads (src/model/rate-limit-headers.ts).
 */
export function normalizeOpenAiHeaders(headers: Headers | null | undefined): Headers | null {
  if (!headers) return null;
  const normalized = new Headers(headers);
  if (!normalized.has('retry-after') && !normalized.has('retry-after-ms')) {
    const resetMs = rateLimitResetMs(headers);
    if (resetMs !== null) normalized.set('retry-after-ms', String(resetMs));
  }
  const limit = count(headers, 'x-ratelimit-limit-requests');
  const remaining = count(headers, 'x-ratelimit-remaining-requests');
  // The Anthropic names are per minute; OpenAI's request limit is per minute too (RPM, ibid.).
  if (limit !== null && !normalized.has('anthropic-ratelimit-requests-limit')) normalized.set('anthropic-ratelimit-requests-limit', String(limit));
  if (remaining !== null && !normalized.has('anthropic-ratelimit-requests-remaining'))
    normalized.set('anthropic-ratelimit-requests-remaining', String(remaining));
  return normalized;
}
