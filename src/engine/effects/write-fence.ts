// The write fence of a tool effect: which tool writes and, while the kill switch is half-open,
// the probe token that lets exactly this write through. Every guarded effect script checks the
// fence in the same Lua step as its write and journals what it wrote (../effect-scripts.ts), so
// "no write landed after the kill switch tripped" holds per write, not per tool call.
//
// Redis Cluster splits the check in two. The switch's keys share the kill switch's hash tag and a
// run's keys its run's (keys.ts), so one script cannot read both. On a cluster the fence first
// reads, in one step on the switch's slot, which scopes refuse this write (bfKillSwitchFenceState:
// the fleet, every refusing tenant and upstream scope), then the write's own step on the run's slot
// gets that list as ARGV and judges which of them cover its run (its tenant, the upstreams in its
// zset) before it writes.
//
// What the split costs: a scope tripped between the two steps (a round trip, a few ms) does not
// refuse a write whose first step came before the trip, so one write per write in flight may land
// after the trip — a single step would have refused it. Bounded: each guarded write is one script
// call, so at most the writes already past their first step when the switch trips land, each at
// most one round trip after the trip; every later write is refused. Re-reading the switch after
// the write and undoing it was weighed and not done: the writes overwrite (files, fields, theme,
// deployments) and the journal keeps no old value, an undo is itself a write after the trip that
// can clobber a parallel call's, and it would only shrink the same window, not close it.
//
// On one server the switch is still judged in the write's own step (atomic with it, no extra round
// trip, the behaviour and guarantee the fleet always had): the split buys nothing where the keys
// share a server, and costs exactly the race above.
import { writesKey } from '../effect-keys.js';
import { killSwitchScopesKey, runUpstreamsKey } from '../kill-switch-keys.js';
import { defineToolScripts, WRITE_REFUSALS, type FenceArgs, type FenceKeys, type WriteRefusalOutcome } from '../effect-scripts.js';
import { isCluster, type RedisClient } from '../../redis/redis-connection.js';
import type { KeySpace } from '../keys.js';

/** What the fence needs of the engine. */
interface FenceEngine {
  redis: RedisClient;
  keys: KeySpace;
}

export interface WriteFence {
  tool: string;
  /** '' unless this call holds the kill switch's half-open probe. */
  probeToken: string;
  /** The tool call the write belongs to (its tool_use id when plain, else a hash: jobs/
   * job-catalog.ts toolUseIdJobPart): journaled with it, and a workspace file write or delete
   * this call already made is not made again when an attempt that died before recording its
   * result is run again (effect-scripts.ts applied_before). Unset for unnamed writers. */
  callId?: string;
}

/** Why a guarded write wrote nothing: the kill switch, the run's safe mode, or its end. */
export type WriteRefusal = WriteRefusalOutcome;

/** The fence of a write nobody named (direct callers, test seeding): journaled as tool 'unknown'. */
export const UNNAMED_WRITE_FENCE: Readonly<WriteFence> = Object.freeze({ tool: 'unknown', probeToken: '' });

const REFUSALS: ReadonlySet<string> = new Set(WRITE_REFUSALS);

export function isWriteRefusal(outcome: unknown): outcome is WriteRefusal {
  return typeof outcome === 'string' && REFUSALS.has(outcome);
}

/** The fence's keys of a run, in script order (engine-internal: the effects pass them on). On a
 * cluster the switch's two keys are replaced by the run hash (never read: fenceArgs carries the
 * switch's verdict instead). */
export function fenceKeys(engine: FenceEngine, runId: string): FenceKeys {
  const { keys } = engine;
  if (isCluster(engine.redis)) return [keys.run(runId), keys.run(runId), writesKey(keys, runId), keys.run(runId), runUpstreamsKey(keys, runId)];
  return [keys.killSwitch(), keys.run(runId), writesKey(keys, runId), killSwitchScopesKey(keys), runUpstreamsKey(keys, runId)];
}

/** The fence's arguments, in script order; on a cluster, after the switch step (see above). */
export async function fenceArgs(engine: FenceEngine, fence: WriteFence | undefined): Promise<FenceArgs> {
  const resolved = fence ?? UNNAMED_WRITE_FENCE;
  const { redis, keys } = engine;
  const call = resolved.callId ?? '';
  if (!isCluster(redis)) return [JSON.stringify({ probe: resolved.probeToken, call }), resolved.tool];
  const blocking = await defineToolScripts(redis).bfKillSwitchFenceState(keys.killSwitch(), killSwitchScopesKey(keys), resolved.probeToken);
  return [JSON.stringify({ blocking, call }), resolved.tool];
}
