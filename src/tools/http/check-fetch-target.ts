// Decides whether a tool may send a request to a URL. Interim policy: http(s) only, and only to
// the site server's own origin or an origin listed in BUILDFLEET_FETCH_ALLOWLIST. Every request
// and every redirect hop goes through this one function, so the full SSRF guard that replaces it
// (resolved-address checks against private ranges) changes nothing else.
import { ToolError } from '../tool-types.js';

export interface FetchTargetPolicy {
  /** The site server's base URL; its origin is always allowed. */
  publicBaseUrl: string;
  /** Comma-separated origins, e.g. "https://images.example.com,https://cdn.example.org". */
  allowlist: string;
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

/** Returns the parsed URL when a request to it is allowed; throws ToolError otherwise. */
export function checkFetchTarget({ url, policy }: { url: string | URL; policy: FetchTargetPolicy }): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ToolError('url_invalid', `${String(url).slice(0, 200)} is not an absolute URL.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ToolError('url_invalid', `Only http and https URLs can be fetched, not ${parsed.protocol}.`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new ToolError('url_invalid', 'URLs with embedded credentials (user:password@) cannot be fetched.');
  }
  if (!allowedOrigins(policy).has(parsed.origin)) {
    throw new ToolError(
      'fetch_blocked',
      `Fetching ${parsed.origin} is not allowed: only the site server and the origins in BUILDFLEET_FETCH_ALLOWLIST can be reached.`,
    );
  }
  return parsed;
}

/** The policy of a tool call's configuration. */
export function fetchPolicyFor(context: { publicBaseUrl: string; config: { BUILDFLEET_FETCH_ALLOWLIST: string } }): FetchTargetPolicy {
  return { publicBaseUrl: context.publicBaseUrl, allowlist: context.config.BUILDFLEET_FETCH_ALLOWLIST };
}
