// Run admission: a tenant's rate limit on run creation and its cap on runs that have not ended,
// checked and recorded in one Lua step so concurrent creations cannot together overshoot either.
// The rate limit is a sliding window log (a sorted set of creation times over the last 60 s, at
// most BUILDFLEET_RATE_LIMIT_PER_MINUTE entries); the cap is the tenant policy's maxConcurrentRuns
// (fleet default BUILDFLEET_MAX_CONCURRENT_RUNS) over the tenant's active-run set, which
// RunEngine.finishRun shrinks when a run ends.
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../../redis/redis-connection.js';
import { LUA_REDIS_NOW_MS } from '../../redis/lua-redis-time.js';
import type { FleetContext } from '../../fleet/fleet-context.js';
import { isTerminal } from '../../engine/index.js';
import { apiErrors } from '../api-errors.js';

export const RATE_WINDOW_MS = 60_000;
/** How long an admitted run's slot is safe from pruning while its record does not exist yet: the
 * run is created right after admission (one or two round trips), so this is generous; a process
 * that died in between leaves a slot that is pruned once it has passed. */
export const ADMISSION_GRACE_MS = 60_000;

/**
 * admitRun
 * KEYS[1] the tenant's creations in the window (zset: unique member → creation time in ms),
 * KEYS[2] the tenant's active runs (set of run ids), KEYS[3] the new run's admission marker. All
 * carry the tenant as hash tag.
 * ARGV[1] creations allowed per window (0 = unlimited), ARGV[2] window in ms,
 * ARGV[3] active runs allowed (0 = unlimited), ARGV[4] the new run's id, ARGV[5] a unique member,
 * ARGV[6] the marker's life in ms.
 * Returns {1, 0} admitted (creation, active run and marker recorded); {0, ms} rate limited, ms until
 * the oldest creation leaves the window; {-1, n} the tenant has n active runs, at or over the cap.
 * Nothing is recorded unless admitted. Time is the server's (TIME), the same for every API process.
 */
const ADMIT_RUN = `
if redis.replicate_commands then redis.replicate_commands() end
` + LUA_REDIS_NOW_MS + `
local now = redis_now_ms()
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local cap = tonumber(ARGV[3])
if limit > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
  if redis.call('ZCARD', KEYS[1]) >= limit then
    local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
    local wait = tonumber(oldest[2]) + window - now
    if wait < 1 then wait = 1 end
    return {0, wait}
  end
end
if cap > 0 then
  local active = redis.call('SCARD', KEYS[2])
  if active >= cap then return {-1, active} end
end
if limit > 0 then
  redis.call('ZADD', KEYS[1], now, ARGV[5])
  redis.call('PEXPIRE', KEYS[1], window)
end
redis.call('SADD', KEYS[2], ARGV[4])
redis.call('SET', KEYS[3], '1', 'PX', tonumber(ARGV[6]))
return {1, 0}
`;

interface AdmissionCommands {
  bfAdmitRun(
    creationsKey: string,
    activeKey: string,
    markerKey: string,
    limit: number,
    windowMs: number,
    cap: number,
    runId: string,
    member: string,
    markerMs: number,
  ): Promise<[number, number]>;
}

function commandsOf(redis: RedisClient): AdmissionCommands {
  const commands = redis as unknown as Record<string, unknown>;
  if (typeof commands.bfAdmitRun !== 'function') redis.defineCommand('bfAdmitRun', { numberOfKeys: 3, lua: ADMIT_RUN });
  return commands as unknown as AdmissionCommands;
}

/** Removes the tenant's active runs that have ended (or no longer exist) from its set: a slot a
 * crash kept between a run's end and the set update. A run without a record whose admission marker
 * is still alive is being created right now (admitted, record not written yet) and keeps its slot:
 * taking it would let concurrent creations overshoot the cap. Returns how many were removed. */
async function pruneEndedRuns({ fleet, tenant }: { fleet: FleetContext; tenant: string }): Promise<number> {
  const key = fleet.store.keys.activeRuns(tenant);
  const members = await fleet.redis.smembers(key);
  if (members.length === 0) return 0;
  // The run hashes are the engine's: it reads and validates their statuses.
  const statuses = await fleet.store.runStatuses(members);
  const missing = members.filter((_runId, index) => statuses[index]?.state === 'missing');
  const beingCreated = new Set<string>();
  if (missing.length > 0) {
    const markers = fleet.redis.pipeline();
    for (const runId of missing) markers.exists(fleet.store.keys.runAdmission(tenant, runId));
    const replies = (await markers.exec()) ?? [];
    missing.forEach((runId, index) => {
      const [error, exists] = replies[index] ?? [new Error('no reply'), 0];
      // Unknown counts as being created: a slot kept too long is safer than a cap overshot.
      if (error || exists === 1) beingCreated.add(runId);
    });
  }
  const ended = members.filter((runId, index) => {
    const reading = statuses[index];
    if (reading?.state === 'invalid') {
      // It keeps its slot (nothing shows it has ended); an operator can see why the tenant is full.
      fleet.logger.warn({ run_id: runId, err: reading.error.message }, 'active run with an invalid stored status keeps its slot');
      return false;
    }
    if (reading?.state === 'missing') return !beingCreated.has(runId);
    return reading?.state === 'found' && isTerminal(reading.value);
  });
  if (ended.length > 0) await fleet.redis.srem(key, ...ended);
  return ended.length;
}

/** Admits one new run of a tenant or throws ApiError rate_limited (with retry-after) or
 * too_many_active_runs. `maxActiveRuns` is the tenant policy's maxConcurrentRuns (null = none). An
 * admitted run holds a slot until it ends or releaseRunAdmission. */
export async function admitRun({ fleet, tenant, runId, maxActiveRuns }: { fleet: FleetContext; tenant: string; runId: string; maxActiveRuns: number | null }): Promise<void> {
  const limit = fleet.config.BUILDFLEET_RATE_LIMIT_PER_MINUTE;
  const cap = maxActiveRuns ?? 0;
  const keys = fleet.store.keys;
  const attempt = () =>
    commandsOf(fleet.redis).bfAdmitRun(
      keys.runCreations(tenant),
      keys.activeRuns(tenant),
      keys.runAdmission(tenant, runId),
      limit,
      RATE_WINDOW_MS,
      cap,
      runId,
      `${Date.now()}-${randomUUID()}`,
      ADMISSION_GRACE_MS,
    );
  let [outcome, detail] = await attempt();
  if (outcome === -1 && (await pruneEndedRuns({ fleet, tenant })) > 0) [outcome, detail] = await attempt();
  if (outcome === 1) return;
  if (outcome === 0) {
    const seconds = Math.max(1, Math.ceil(detail / 1000));
    throw apiErrors
      .rateLimited(`This tenant may create ${limit} runs per minute; retry in ${seconds} s.`)
      .withHeaders({ 'retry-after': String(seconds) });
  }
  throw apiErrors.tooManyActiveRuns(`This tenant has ${detail} runs that have not ended (at most ${cap}); wait for one to end or cancel one.`);
}

/** Gives an admitted run's slot back when its creation failed after admission. */
export async function releaseRunAdmission({ fleet, tenant, runId }: { fleet: FleetContext; tenant: string; runId: string }): Promise<void> {
  // One slot, one MULTI: both keys carry the tenant's hash tag.
  await fleet.redis.multi().srem(fleet.store.keys.activeRuns(tenant), runId).del(fleet.store.keys.runAdmission(tenant, runId)).exec();
}
