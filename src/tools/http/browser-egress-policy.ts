// The fetch tools' policy (check-fetch-target.ts), applied to what the screenshot tool's browser
// asks its guarded forward proxy (src/safety/guarded-forward-proxy.ts) for. A plain HTTP request
// is judged exactly like a fetch tool's URL; the proxy checks the address it connects to, so the
// request counts as address-guarded (public hosts pass while BUILDFLEET_FETCH_PUBLIC is on).
//
// A CONNECT names only host:port, not the scheme (Chromium tunnels https, ws and wss alike). It is
// trusted when that host:port is exactly the host:port of an allowlisted origin (the tunnel then
// reaches the same server the origin names, e.g. a WebSocket to the fleet's own origin), and is
// otherwise judged like any other host: never a refused address or name, and only while public
// hosts are allowed. Other ports of an allowed host stay refused.
import type { ProxyDecision, ProxyTarget } from '../../safety/guarded-forward-proxy.js';
import { ToolError } from '../tool-types.js';
import { allowedOrigins, checkFetchTarget, isAllowlistedTarget, type FetchTargetPolicy } from './check-fetch-target.js';

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

function hostAndPort(url: URL): string {
  return `${url.hostname}:${url.port === '' ? String(DEFAULT_PORTS[url.protocol] ?? '') : url.port}`;
}

function judged(check: () => URL, policy: FetchTargetPolicy): ProxyDecision {
  try {
    const url = check();
    return { allowed: true, trusted: isAllowlistedTarget({ url, policy }) };
  } catch (error) {
    if (ToolError.isInstance(error)) return { allowed: false, reason: error.message };
    throw error;
  }
}

/** Whether the browser's proxy may relay this request or tunnel, and whether it is trusted. */
export function decideBrowserEgress({ target, policy }: { target: ProxyTarget; policy: FetchTargetPolicy }): ProxyDecision {
  if (target.kind === 'request') return judged(() => checkFetchTarget({ url: target.url, policy, addressGuarded: true }), policy);
  const authority = `${target.hostname}:${target.port}`;
  for (const origin of allowedOrigins(policy)) {
    if (hostAndPort(new URL(origin)) === authority) return { allowed: true, trusted: true };
  }
  // The scheme only matters for the allowlist, handled above: for any other host the rules look
  // at the host alone (https is the scheme most tunnels carry).
  const decision = judged(() => checkFetchTarget({ url: `https://${authority}/`, policy, addressGuarded: true }), policy);
  return decision.allowed ? { allowed: true, trusted: false } : decision;
}
