// The scopes of the kill switch and the upstream of a tool call.
//
//   fleet                    every write of every run
//   tenant:<tenant>          the writes of that tenant's runs
//   upstream:<tool>:<host>   the writes that depend on what <tool> read from <host>: every write
//                            of a run that recorded an output of that tool from that host within
//                            the window
//
// A tool call's upstream is its tool plus the host of its `url` input (fetch_url_live,
// fetch_image, screenshot), with two exceptions that share no upstream between tenants:
//   - a URL on the fleet's own sites origin (the tool context's publicBaseUrl, always allowlisted):
//     every tenant reads its own deployments there, so what it reads is that tenant's own content
//     — its outcomes count for its tenant (and the fleet window) only, never as a shared upstream
//     that several buggy tenants could trip for everybody (issue #16's incident);
//   - a tool without a `url` (write_file, list_files, check_broken_images …) is one of the fleet's
//     own tools: its outcomes are windowed per tool, and the fleet trips on them only when enough
//     tenants spike on that tool (src/safety/kill-switch-scripts.ts).
import { assertNever } from '../domain/assert-never.js';
import { TENANT_PATTERN } from '../domain/tenant-id.js';

export const KILL_SWITCH_SCOPE_KINDS = ['fleet', 'tenant', 'upstream'] as const;
export type KillSwitchScopeKind = (typeof KILL_SWITCH_SCOPE_KINDS)[number];

export type KillSwitchScope = { kind: 'fleet' } | { kind: 'tenant'; tenant: string } | { kind: 'upstream'; tool: string; host: string };

/** What a tool call reads from: the host of its `url` input (a shared upstream), or null — for
 * the fleet's own tools, and for URLs on the fleet's own sites origin (`ownSite`). */
export interface ToolUpstream {
  tool: string;
  host: string | null;
  /** The `url` is on the fleet's own sites origin: the outcome is its tenant's alone. */
  ownSite?: boolean;
}

const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;
const MAX_HOST_LENGTH = 300;

/** The id a scope is stored, listed and reset under. */
export function scopeIdOf(scope: KillSwitchScope): string {
  switch (scope.kind) {
    case 'fleet':
      return 'fleet';
    case 'tenant':
      return `tenant:${scope.tenant}`;
    case 'upstream':
      return `upstream:${scope.tool}:${scope.host}`;
    default:
      return assertNever(scope, 'Unknown kill switch scope');
  }
}

/** The scope of an id, or null when the id names none (a boundary: ids come from Redis and admins). */
export function parseScopeId(id: string): KillSwitchScope | null {
  if (id === 'fleet') return { kind: 'fleet' };
  if (id.startsWith('tenant:')) {
    const tenant = id.slice('tenant:'.length);
    return TENANT_PATTERN.test(tenant) ? { kind: 'tenant', tenant } : null;
  }
  if (id.startsWith('upstream:')) {
    const rest = id.slice('upstream:'.length);
    const colon = rest.indexOf(':');
    if (colon < 0) return null;
    const tool = rest.slice(0, colon);
    const host = rest.slice(colon + 1);
    if (!TOOL_NAME.test(tool) || host.length === 0 || host.length > MAX_HOST_LENGTH || /[\s/]/.test(host)) return null;
    return { kind: 'upstream', tool, host };
  }
  return null;
}

/** The id of the shared window an outcome is recorded in besides the fleet's and its tenant's:
 * `upstream:<tool>:<host>` for a shared upstream, `tool:<tool>` for a fleet's own tool, and
 * `site:<tool>` for the fleet's own sites origin, which has no shared window (the record script
 * leaves it untouched). The prefix tells the script which of the three it is. */
export function outcomeWindowIdOf(upstream: ToolUpstream): string {
  if (upstream.host !== null) return scopeIdOf({ kind: 'upstream', tool: upstream.tool, host: upstream.host });
  return upstream.ownSite ? `site:${upstream.tool}` : `tool:${upstream.tool}`;
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** A tool call's upstream: the host (with a non-default port) of the endpoint the tool is served by
 * (`serviceUrl`: an HTTP or MCP tool's, whatever the input holds), else of its `url` input, lower-cased by
 * the WHATWG URL parser; `(invalid-url)` when the url does not parse, so it never counts as the
 * fleet's own tool. A `url` on the fleet's own sites origin (`sitesBaseUrl`, the publicBaseUrl
 * the tools get) has no shared upstream: `{host: null, ownSite: true}`. */
export function upstreamOf({
  tool,
  input,
  sitesBaseUrl,
  serviceUrl,
}: {
  tool: string;
  input: unknown;
  sitesBaseUrl: string;
  serviceUrl?: string | undefined;
}): ToolUpstream {
  const url = serviceUrl ?? (typeof input === 'object' && input !== null && 'url' in input ? (input as { url: unknown }).url : undefined);
  if (typeof url !== 'string') return { tool, host: null };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { tool, host: '(invalid-url)' };
  }
  // Compared by origin (scheme, host, port), as the fetch policy allowlists it (check-fetch-target.ts).
  const ownOrigin = originOf(sitesBaseUrl);
  if (ownOrigin !== null && ownOrigin !== 'null' && parsed.origin === ownOrigin) return { tool, host: null, ownSite: true };
  const host = parsed.host;
  return { tool, host: host.length > 0 && host.length <= MAX_HOST_LENGTH ? host : '(invalid-url)' };
}

/** The scope in words, for refusals and logs. */
export function describeScope(scope: KillSwitchScope): string {
  switch (scope.kind) {
    case 'fleet':
      return 'The fleet-wide kill switch';
    case 'tenant':
      return `The kill switch of tenant "${scope.tenant}"`;
    case 'upstream':
      return `The kill switch of upstream ${scope.tool} at ${scope.host} (this run read from it)`;
    default:
      return assertNever(scope, 'Unknown kill switch scope');
  }
}
