// The kill switch's modes, shared by the switch, its routes and the metrics hook.
import { assertNever } from '../domain/assert-never.js';

/** read_write: writes allowed. read_only: every write tool refused, reads go on. half_open: after
 * an automatic trip's cool-down, one probe write is let through to test recovery. */
export const KILL_SWITCH_MODES = ['read_write', 'read_only', 'half_open'] as const;
export type KillSwitchMode = (typeof KILL_SWITCH_MODES)[number];

export function isKillSwitchMode(value: unknown): value is KillSwitchMode {
  return typeof value === 'string' && (KILL_SWITCH_MODES as readonly string[]).includes(value);
}

/** The value of the buildfleet_killswitch_state gauge: 0 read_write, 1 half_open, 2 read_only. */
export function killSwitchGaugeValue(mode: KillSwitchMode): number {
  switch (mode) {
    case 'read_write':
      return 0;
    case 'half_open':
      return 1;
    case 'read_only':
      return 2;
    default:
      return assertNever(mode, 'Unknown kill switch mode');
  }
}

/** Why a scope tripped. The fleet: `tenants` — its window reached threshold and volume with enough
 * spiking tenants; `upstream` — one upstream's window did, failing for enough tenants; `own_tool` —
 * a tool of the fleet's own (no `url` input) did, with enough tenants spiking on it. An upstream:
 * `tenants` — its window did with enough tenants spiking on it. A tenant: `volume` — its window did. */
export const KILL_SWITCH_TRIP_CAUSES = ['tenants', 'upstream', 'own_tool', 'volume'] as const;
export type KillSwitchTripCause = (typeof KILL_SWITCH_TRIP_CAUSES)[number];
