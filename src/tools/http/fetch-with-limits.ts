// An HTTP GET/HEAD for tools: redirects followed by hand so every hop passes checkFetchTarget,
// every connection through the SSRF guard (the address connected to is checked), one deadline
// over all hops and the body, and a body read that stops at a byte cap instead of buffering
// whatever a server sends. Every URL (a redirect target is the upstream's choice) and every
// network error in a message is quoted as data (quote-untrusted.ts).
import { guardedFetch } from '../../safety/ssrf-guard-fetch.js';
import { SsrfBlockedError, type HostResolver } from '../../safety/ssrf-guard.js';
import { ToolError } from '../tool-types.js';
import { quoteUntrusted } from '../../domain/quote-untrusted.js';
import { checkFetchTarget, isAllowlistedTarget, type FetchTargetPolicy } from './check-fetch-target.js';

export const FETCH_TIMEOUT_MS = 10_000;
export const FETCH_MAX_BYTES = 2 * 1024 * 1024;
export const FETCH_MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface FetchWithLimitsInput {
  url: string;
  policy: FetchTargetPolicy;
  /** The tool call's signal: its abort is a cancellation, not a tool failure, so it propagates. */
  signal: AbortSignal;
  /** POST (an HTTP tool's call, src/tools/http-tool/): sends `body`, follows no redirect (a 3xx is
   * the answer), and is never sent twice by this function. */
  method?: 'GET' | 'HEAD' | 'POST';
  /** POST only: the body, sent as given. */
  body?: string;
  /** Sent besides user-agent and accept. */
  headers?: Record<string, string>;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** DNS for hosts that are not allowlisted (default: the system resolver); tests script it. */
  resolveHost?: HostResolver;
}

export interface LimitedResponse {
  finalUrl: string;
  status: number;
  /** Lower-cased media type without parameters, '' when absent. */
  contentType: string;
  body: Buffer;
  /** True when the body was longer than maxBytes and only maxBytes were read. */
  truncated: boolean;
  redirects: number;
}

async function readCapped(response: Response, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  if (!response.body) return { body: Buffer.alloc(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { body: Buffer.concat(chunks), truncated: false };
    chunks.push(Buffer.from(value));
    total += value.byteLength;
    if (total > maxBytes) {
      // Cancelling tells the server to stop sending; the rest is never buffered.
      await reader.cancel().catch(() => undefined);
      return { body: Buffer.concat(chunks).subarray(0, maxBytes), truncated: true };
    }
  }
}

function describeNetworkError(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/** Fetches a URL within the limits; throws ToolError for blocked targets, redirect loops,
 * timeouts and network failures, and rethrows when the caller's signal aborts. */
export async function fetchWithLimits({
  url,
  policy,
  signal,
  method = 'GET',
  body: requestBody,
  headers = {},
  timeoutMs = FETCH_TIMEOUT_MS,
  maxBytes = FETCH_MAX_BYTES,
  maxRedirects = FETCH_MAX_REDIRECTS,
  resolveHost,
}: FetchWithLimitsInput): Promise<LimitedResponse> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = AbortSignal.any([signal, timeout]);
  let current = checkFetchTarget({ url, policy, addressGuarded: true });
  let redirects = 0;
  try {
    for (;;) {
      const response = await guardedFetch(current, {
        method,
        signal: combined,
        headers: { 'user-agent': 'buildfleet-tools/0.1', accept: '*/*', ...headers },
        ...(method === 'POST' ? { body: requestBody ?? '' } : {}),
        trusted: isAllowlistedTarget({ url: current, policy }),
        ...(resolveHost ? { resolve: resolveHost } : {}),
      });
      const location = response.headers.get('location');
      if (method !== 'POST' && REDIRECT_STATUSES.has(response.status) && location) {
        await response.body?.cancel().catch(() => undefined);
        if (redirects >= maxRedirects) {
          throw new ToolError(
            'fetch_too_many_redirects',
            `${quoteUntrusted(url)} redirected more than ${maxRedirects} times; last hop ${quoteUntrusted(current.href)}.`,
          );
        }
        redirects += 1;
        current = checkFetchTarget({ url: new URL(location, current), policy, addressGuarded: true });
        continue;
      }
      const { body, truncated } = method === 'HEAD' ? { body: Buffer.alloc(0), truncated: false } : await readCapped(response, maxBytes);
      const contentType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      return { finalUrl: current.href, status: response.status, contentType, body, truncated, redirects };
    }
  } catch (error) {
    if (ToolError.isInstance(error)) throw error;
    if (SsrfBlockedError.isInstance(error))
      throw new ToolError('fetch_blocked', `Fetching ${quoteUntrusted(current.href)} is not allowed: ${quoteUntrusted(error.message)}.`);
    if (signal.aborted) throw error;
    if (timeout.aborted) {
      throw new ToolError('fetch_timeout', `${quoteUntrusted(current.href)} did not respond completely within ${timeoutMs / 1000} s.`);
    }
    throw new ToolError('fetch_failed', `Could not fetch ${quoteUntrusted(current.href)}: ${quoteUntrusted(describeNetworkError(error))}.`);
  }
}
