// Redis keys of the scoped kill switch beyond keys.ts (`killSwitch()` is the fleet scope's hash,
// `toolOutcomes()` the fleet window). They live in the engine because the write fence
// (effect-scripts.ts) reads two of them inside every guarded write; the switch itself
// (src/safety/kill-switch.ts) writes them — all but the run's upstreams, which are a key of the run
// and the engine's alone (systems/upstream-system.ts keeps them; not exported by index.ts).
//
// Every key here but the run's upstreams carries the kill switch's hash tag (through keys.ts
// killSwitch()/toolOutcomes()), so each kill switch script stays in one slot on Redis Cluster. The
// run's upstreams carry the run's tag instead: they are kept with the run's keys, and the switch
// reads and notes them through the engine in steps of their own (src/safety/kill-switch.ts says why).
//
// A scope id names one scope: `fleet`, `tenant:<tenant>` or `upstream:<tool>:<host>`
// (src/safety/kill-switch-scope.ts parses them). Tenants match TENANT_PATTERN (no `:`); tool names
// have none either, so the host is everything after the second `:` (ports and IPv6 included).
import type { KeySpace } from './keys.js';

/** Hash: scope id → JSON state of every tenant and upstream scope that is tripped, half-open, or
 * was reset within the window (`{mode, reason, since_ms, source, probe?, probe_until?, floor_ms?, trip?}`).
 * Holds no entry for scopes that never tripped, so its size is bounded by the trips. */
export function killSwitchScopesKey(keys: KeySpace): string {
  return `${keys.killSwitch()}:scopes`;
}

/** List: the last trips of every scope (JSON, newest first, capped), kept after resets for the record. */
export function killSwitchTripsKey(keys: KeySpace): string {
  return `${keys.killSwitch()}:trips`;
}

/** Hash: the sliding window of one scope's tool outcomes (fields n:<unix second>, x:<unix second>);
 * also `tool:<tool>` for a fleet's own tool, and `upstream:<tool>:<host>:tenant:<tenant>` /
 * `tool:<tool>:tenant:<tenant>` for one tenant's outcomes from one upstream / own tool. */
export function scopeWindowKey(keys: KeySpace, scopeId: string): string {
  return scopeId === 'fleet' ? keys.toolOutcomes() : `${keys.toolOutcomes()}:${scopeId}`;
}

/** Sorted set: tenant → Redis ms of its last invalid output in the scope while the tenant itself was
 * spiking there (its own invalid share in the scope at or over the threshold). Counts the tenants
 * behind a spike. */
export function scopeTenantsKey(keys: KeySpace, scopeId: string): string {
  return `${scopeWindowKey(keys, scopeId)}:tenants`;
}

/** Sorted set: tenant → Redis ms of its last invalid output from an upstream (spiking or not):
 * how many tenants a broken upstream fails. */
export function scopeFailingTenantsKey(keys: KeySpace, scopeId: string): string {
  return `${scopeWindowKey(keys, scopeId)}:failing`;
}

/** Sorted set: the upstream scope ids a run read from → the Redis ms until which its writes depend
 * on them; past MAX_RUN_UPSTREAMS distinct ones in a window, the one member `*` (every upstream:
 * run-upstream-scopes-lua.ts). Carries the run's hash tag, like every key of a run. */
export function runUpstreamsKey(keys: KeySpace, runId: string): string {
  return `${keys.run(runId)}:upstreams`;
}
