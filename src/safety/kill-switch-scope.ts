// The scopes of the kill switch and the upstream of a tool call.
//
//   fleet                    every write of every run
//   tenant:<tenant>          the writes of that tenant's runs
//   upstream:<tool>:<host>   the writes that depend on what <tool> read from <host>: every write
//                            of a run that recorded an output of that tool from that host within
//                            the window
//
// A tool call's upstream is its tool plus the host of its `url` input (fetch_url_live,
// fetch_image, screenshot). A tool without one (write_file, list_files, deploy …) reads only what
// the fleet itself serves: its upstream is the fleet, and a spike in its outputs trips the fleet.
import { assertNever } from '../domain/profile.js';

export const KILL_SWITCH_SCOPE_KINDS = ['fleet', 'tenant', 'upstream'] as const;
export type KillSwitchScopeKind = (typeof KILL_SWITCH_SCOPE_KINDS)[number];

export type KillSwitchScope = { kind: 'fleet' } | { kind: 'tenant'; tenant: string } | { kind: 'upstream'; tool: string; host: string };

/** What a tool call reads from: the host of its `url` input, or null for the fleet's own tools. */
export interface ToolUpstream {
  tool: string;
  host: string | null;
}

const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;
// TENANT_PATTERN of src/auth/api-key-store.ts (repeated: the safety layer does not import auth).
const TENANT = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
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
    return TENANT.test(tenant) ? { kind: 'tenant', tenant } : null;
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

/** The scope id of a tool call's upstream, or null for the fleet's own tools. */
export function upstreamScopeIdOf(upstream: ToolUpstream): string | null {
  return upstream.host === null ? null : scopeIdOf({ kind: 'upstream', tool: upstream.tool, host: upstream.host });
}

/** A tool call's upstream: the host (with a non-default port) of its `url` input, lower-cased by
 * the WHATWG URL parser; `(invalid-url)` when the url does not parse, so it never counts as the
 * fleet's own tool. */
export function upstreamOf({ tool, input }: { tool: string; input: unknown }): ToolUpstream {
  const url = typeof input === 'object' && input !== null && 'url' in input ? (input as { url: unknown }).url : undefined;
  if (typeof url !== 'string') return { tool, host: null };
  try {
    const host = new URL(url).host;
    return { tool, host: host.length > 0 && host.length <= MAX_HOST_LENGTH ? host : '(invalid-url)' };
  } catch {
    return { tool, host: '(invalid-url)' };
  }
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
