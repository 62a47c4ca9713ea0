// The processes of a dev fleet (src/cli/dev-fleet.ts spawns each role with spawn-role.ts), grouped
// by role kind, with their CPU time and /metrics address.
import type { DevFleet } from '../src/cli/dev-fleet.js';
import { processCpuSeconds } from './process-stats.js';

export type RoleKind = 'model' | 'tool' | 'api' | 'simulator';
export const ROLE_KINDS: readonly RoleKind[] = ['model', 'tool', 'api', 'simulator'];

type Role = DevFleet['roles'][number];

/** model-worker-1 → model, tool-worker-2 → tool, api, simulator. */
export function roleKind(role: Role): RoleKind | null {
  if (role.name.startsWith('model')) return 'model';
  if (role.name.startsWith('tool')) return 'tool';
  if (role.name.startsWith('api')) return 'api';
  if (role.name.startsWith('simulator')) return 'simulator';
  return null;
}

export function rolesOf(fleet: DevFleet, kind: RoleKind): Role[] {
  return fleet.roles.filter((role) => roleKind(role) === kind);
}

/** CPU seconds used so far by every process of each role kind. */
export function cpuByRole(fleet: DevFleet): Record<RoleKind, number> {
  const out = { model: 0, tool: 0, api: 0, simulator: 0 };
  for (const kind of ROLE_KINDS) out[kind] = rolesOf(fleet, kind).reduce((sum, role) => sum + processCpuSeconds(role.child.pid), 0);
  return out;
}

/** The /metrics URL a role printed at start: workers log "… health and metrics on <url>" (pino
 * JSON at LOG_LEVEL=info, src/fleet/start-roles.ts), the API and simulator print the same words. */
export async function metricsUrlOf(role: Role): Promise<string | null> {
  try {
    const match = await role.waitForLine(/health and metrics on (http:\/\/[^\s"]+)/, 5_000);
    return match[1] ? `${match[1].replace(/\/$/, '')}/metrics` : null;
  } catch {
    return null;
  }
}
