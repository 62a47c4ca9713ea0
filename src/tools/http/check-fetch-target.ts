// Decides whether a tool may send a request to a URL: http(s) only, no credentials. The site
// server's own origin and the origins in BUILDFLEET_FETCH_ALLOWLIST are always allowed (trusted:
// their addresses are not checked). Any other host is refused when it is an IP literal or name
// the SSRF guard refuses (src/safety/ssrf-guard.ts; WHATWG URL parsing has already turned
// 2130706433, 0x7f000001, 0177.0.0.1 and 127.1 into 127.0.0.1), and is otherwise allowed only
// for callers that connect through the guard (`addressGuarded`, fetch-with-limits), which checks
// the address each connection really uses, and only while BUILDFLEET_FETCH_PUBLIC is on. Every
// request and every redirect hop goes through this one function. A URL can be a redirect target an
// upstream chose, so the messages quote it as data (quote-untrusted.ts).
import { blockedHostReason } from '../../safety/ssrf-guard.js';
import { ToolError } from '../tool-types.js';
import { quoteUntrusted } from '../../domain/quote-untrusted.js';

export interface FetchTargetPolicy {
  /** The site server's base URL; its origin is always allowed. */
  publicBaseUrl: string;
  /** Comma-separated origins, e.g. "https://images.example.com,https://cdn.example.org". */
  allowlist: string;
  /** Public hosts besides those (BUILDFLEET_FETCH_PUBLIC); default true. */
  allowPublic?: boolean;
}

function originOf(value: string): string | null {
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null;
  } catch {
    return null;
  }
}

/** The origins a policy allows (entries that are not http(s) origins are ignored). */
export function allowedOrigins(policy: FetchTargetPolicy): Set<string> {
  const origins = new Set<string>();
  const own = originOf(policy.publicBaseUrl);
  if (own) origins.add(own);
  for (const entry of policy.allowlist.split(',')) {
    const origin = entry.trim() === '' ? null : originOf(entry);
    if (origin) origins.add(origin);
  }
  return origins;
}

/** Whether a URL's origin is the site server's or on the allowlist (trusted, not address-checked). */
export function isAllowlistedTarget({ url, policy }: { url: URL; policy: FetchTargetPolicy }): boolean {
  return allowedOrigins(policy).has(url.origin);
}

/** Returns the parsed URL when a request to it is allowed; throws ToolError otherwise. Callers
 * that cannot check the address they connect to (Chromium) leave `addressGuarded` false and reach
 * only the allowlist. */
export function checkFetchTarget({ url, policy, addressGuarded = false }: { url: string | URL; policy: FetchTargetPolicy; addressGuarded?: boolean }): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ToolError('url_invalid', `${quoteUntrusted(String(url), { maxCharacters: 200 })} is not an absolute URL.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ToolError('url_invalid', `Only http and https URLs can be fetched, not ${quoteUntrusted(parsed.protocol, { maxCharacters: 40 })}.`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new ToolError('url_invalid', 'URLs with embedded credentials (user:password@) cannot be fetched.');
  }
  if (allowedOrigins(policy).has(parsed.origin)) return parsed;
  const refused = blockedHostReason(parsed.hostname);
  if (refused)
    throw new ToolError('fetch_blocked', `Fetching ${quoteUntrusted(parsed.origin)} is not allowed: ${quoteUntrusted(parsed.hostname)} is ${refused}.`);
  if (!addressGuarded || policy.allowPublic === false) {
    throw new ToolError(
      'fetch_blocked',
      `Fetching ${quoteUntrusted(parsed.origin)} is not allowed: only the site server and the origins in BUILDFLEET_FETCH_ALLOWLIST can be reached.`,
    );
  }
  return parsed;
}

/** The policy of a tool call's configuration. */
export function fetchPolicyFor(context: {
  publicBaseUrl: string;
  config: { BUILDFLEET_FETCH_ALLOWLIST: string; BUILDFLEET_FETCH_PUBLIC?: boolean };
}): FetchTargetPolicy {
  return {
    publicBaseUrl: context.publicBaseUrl,
    allowlist: context.config.BUILDFLEET_FETCH_ALLOWLIST,
    allowPublic: context.config.BUILDFLEET_FETCH_PUBLIC ?? true,
  };
}
