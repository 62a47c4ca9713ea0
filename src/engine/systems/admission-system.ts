// The admission system: a tenant's rate limit on run creation and its cap on runs that have not
// ended, checked and recorded in one Lua step so concurrent creations cannot together overshoot
// either. The rate limit is a sliding window log (a sorted set of creation times over the last 60 s,
// at most `ratePerMinute` entries); the cap is the tenant policy's maxConcurrentRuns over the
// tenant's active-run set (`keys.activeRuns`), which this system owns: a run takes its slot here and
// gives it back when it ends (LifecycleSystem.ended → releaseEndedRun). The API maps a refusal to
// its HTTP error (src/api/limits/admit-run.ts).
import { randomUUID } from 'node:crypto';
import { LUA_REDIS_NOW_MS } from '../../redis/lua-redis-time.js';
import { defineLuaCommands } from '../../redis/define-lua-commands.js';
import { isTerminal } from '../run-types.js';
import type { RunStatus } from '../../domain/run-outcomes.js';
import type { RunReading } from '../run-summary.js';
import { type EngineContext, EngineSystem } from './engine-system.js';

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
const ADMIT_RUN =
  `
if redis.replicate_commands then redis.replicate_commands() end
` +
  LUA_REDIS_NOW_MS +
  `
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

/** What admission answered: admitted (the run holds a slot), or refused — rate limited (with how
 * long until the oldest creation leaves the window) or at the tenant's cap (with its active runs). */
export type Admission =
  { kind: 'admitted' } | { kind: 'rate_limited'; retryAfterMs: number; limit: number } | { kind: 'too_many_active_runs'; active: number; cap: number };

export class AdmissionSystem extends EngineSystem {
  private readonly commands: AdmissionCommands;

  constructor(
    context: EngineContext,
    /** The run statuses, read and validated by the lifecycle system (the run hashes are its own). */
    private readonly runStatuses: (runIds: readonly string[]) => Promise<Array<RunReading<RunStatus>>>,
  ) {
    super(context);
    this.commands = defineLuaCommands<AdmissionCommands>(context.redis, { bfAdmitRun: { numberOfKeys: 3, lua: ADMIT_RUN } });
  }

  /** Admits one new run of a tenant, or says why not. `ratePerMinute` is the fleet's rate limit
   * (0 = none); `maxActiveRuns` the tenant policy's maxConcurrentRuns (null = none). An admitted
   * run holds a slot until it ends or releaseRunAdmission. */
  async admitRun({
    tenant,
    runId,
    ratePerMinute,
    maxActiveRuns,
  }: {
    tenant: string;
    runId: string;
    ratePerMinute: number;
    maxActiveRuns: number | null;
  }): Promise<Admission> {
    const cap = maxActiveRuns ?? 0;
    const keys = this.keys;
    const attempt = () =>
      this.commands.bfAdmitRun(
        keys.runCreations(tenant),
        keys.activeRuns(tenant),
        keys.runAdmission(tenant, runId),
        ratePerMinute,
        RATE_WINDOW_MS,
        cap,
        runId,
        `${Date.now()}-${randomUUID()}`,
        ADMISSION_GRACE_MS,
      );
    let [outcome, detail] = await attempt();
    if (outcome === -1 && (await this.pruneEndedRuns(tenant)) > 0) [outcome, detail] = await attempt();
    if (outcome === 1) return { kind: 'admitted' };
    if (outcome === 0) return { kind: 'rate_limited', retryAfterMs: detail, limit: ratePerMinute };
    return { kind: 'too_many_active_runs', active: detail, cap };
  }

  /** Gives an admitted run's slot back when its creation failed after admission. */
  async releaseRunAdmission({ tenant, runId }: { tenant: string; runId: string }): Promise<void> {
    // One slot, one MULTI: both keys carry the tenant's hash tag.
    await this.redis.multi().srem(this.keys.activeRuns(tenant), runId).del(this.keys.runAdmission(tenant, runId)).exec();
  }

  /** Frees an ended run's slot under its tenant's cap. Not inside the ending script: the tenant's
   * set and the run hash are in different Cluster slots. Only the call that made the transition
   * gets here, and SREM is idempotent; a failure or a crash in between leaves a member that
   * admission prunes when the cap is reached. */
  async releaseEndedRun({ tenant, runId }: { tenant: string; runId: string }): Promise<void> {
    await this.redis.srem(this.keys.activeRuns(tenant), runId).catch((error: unknown) => {
      this.logger?.warn({ run_id: runId, err: error instanceof Error ? error.message : String(error) }, 'active-run slot not freed; admission prunes it');
    });
  }

  /** Whether the run holds a slot under its tenant's cap. */
  async holdsSlot({ tenant, runId }: { tenant: string; runId: string }): Promise<boolean> {
    return (await this.redis.sismember(this.keys.activeRuns(tenant), runId)) === 1;
  }

  /** How many slots the tenant's runs hold (runs admitted and not seen ended). */
  async activeRunCount(tenant: string): Promise<number> {
    return this.redis.scard(this.keys.activeRuns(tenant));
  }

  /** Removes the tenant's active runs that have ended (or no longer exist) from its set: a slot a
   * crash kept between a run's end and the set update. A run without a record whose admission
   * marker is still alive is being created right now (admitted, record not written yet) and keeps
   * its slot: taking it would let concurrent creations overshoot the cap. Returns how many were
   * removed. */
  private async pruneEndedRuns(tenant: string): Promise<number> {
    const key = this.keys.activeRuns(tenant);
    const members = await this.redis.smembers(key);
    if (members.length === 0) return 0;
    const statuses = await this.runStatuses(members);
    const missing = members.filter((_runId, index) => statuses[index]?.state === 'missing');
    const beingCreated = new Set<string>();
    if (missing.length > 0) {
      const markers = this.redis.pipeline();
      for (const runId of missing) markers.exists(this.keys.runAdmission(tenant, runId));
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
        this.logger?.warn({ run_id: runId, err: reading.error.message }, 'active run with an invalid stored status keeps its slot');
        return false;
      }
      if (reading?.state === 'missing') return !beingCreated.has(runId);
      return reading?.state === 'found' && isTerminal(reading.value);
    });
    if (ended.length > 0) await this.redis.srem(key, ...ended);
    return ended.length;
  }
}
