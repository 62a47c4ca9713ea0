// The scoped kill switch. Every validated tool output is recorded, in one Lua step, in three
// sliding windows — the fleet's, its run's tenant's and its upstream's (tool + host), or for a
// fleet's own tool that tool's (a URL on the fleet's own sites origin has neither: it is its
// tenant's own content, kill-switch-scope.ts) — and that step trips whichever scope it must:
//
//   tenant    the tenant's window reaches the threshold with the minimum volume: that tenant's
//             runs go read-only, nobody else's.
//   upstream  its window does, and at least `upstreamMinTenants` tenants spike on it (one tenant
//             fetching junk from a shared host trips only itself): the writes that depend on it
//             go read-only — every write of a run that recorded an output from that upstream
//             within the window. (A write tool's own fetch, fetch_image, is not refused by it: its
//             content is validated before anything is written, and its outcome is evidence.)
//   fleet     every write stops when the spike is fleet-wide: one upstream's window does, with
//             at least `upstreamMinTenants` tenants spiking on it and `fleetMinTenants` failing on
//             it; or the fleet's window does with at least `fleetMinTenants` tenants spiking; or
//             a fleet's own tool's window does with at least `fleetMinTenants` tenants spiking on
//             that tool (a tenant can make an own tool's output invalid with what it wrote —
//             check_broken_images over its own pages — so one tenant's spike there is its own).
//
// A tenant is *spiking* when its own window reaches the threshold with the volume (it would trip);
// *spiking on an upstream* when its own outputs from it are at or over the threshold; *failing on*
// it with any invalid output from it. With fleetMinTenants = 1 the fleet trips on any spike, as
// the switch did before it had scopes.
//
// Every write tool is refused while a scope that covers it is read_only — checked before it
// starts (claimWrite) and again, atomically, by the Lua script that performs its Redis write
// (src/engine/effect-scripts.ts) — while reads and runs go on. An operator resets any scope
// (api/routes/kill-switch-routes.ts); with a cool-down configured each scope also half-opens by
// itself and lets one probe write through.
//
// Which upstreams a run's writes depend on is the run's state, so the run engine keeps it
// (RunEngine.noteRunUpstream / liveUpstreamsOf: a key of the run, in its slot, expiring with its
// other keys); every other key of the switch is fleet-wide and carries one hash tag (keys.ts), so
// each of the switch's scripts is in one slot, on one server or a Redis Cluster alike. The record
// and the claim are therefore two steps each: the record first notes the upstream with the engine,
// then records the outcome; the claim first reads the run's live upstreams from the engine, then
// judges them with the scopes — a tool job's claim takes the list the engine read with the run as
// the job started (RunEngine.loadToolCall), so it costs no round trip more. What the two steps
// cost: an upstream the run starts depending on after that read (a parallel call of the same run
// recording an output) is not judged by that claim — the write fence judges it again at the write
// itself, from the run's own zset, in the write's step (src/engine/effects/write-fence.ts) — and
// noting before recording keeps the record's side safe (the run depends on the upstream before its
// outcome can trip it). An output from an upstream costs one round trip more (the note). Clocks: on a cluster zset scores are Redis
// TIME of the run's node, judged against the switch node's TIME — windows are minutes, clocks
// agree to milliseconds.
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../redis/redis-connection.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Config } from '../config.js';
import {
  type KeySpace,
  killSwitchScopesKey,
  killSwitchTripsKey,
  type RunUpstreams,
  scopeFailingTenantsKey,
  scopeTenantsKey,
  scopeWindowKey,
} from '../engine/index.js';
import { defineKillSwitchScripts, readWindowFigures, type KillSwitchScripts } from './kill-switch-scripts.js';
import { isKillSwitchMode, KILL_SWITCH_TRIP_CAUSES, type KillSwitchMode, type KillSwitchTripCause } from './kill-switch-mode.js';
import {
  describeScope,
  outcomeWindowIdOf,
  parseScopeId,
  scopeIdOf,
  type KillSwitchScope,
  type KillSwitchScopeKind,
  type ToolUpstream,
} from './kill-switch-scope.js';
import type { KillSwitchScopeCount, KillSwitchScopeSource, ToolSafetyHooks } from './safety-hooks.js';

export interface KillSwitchSettings {
  /** Invalid share (0..1] of a window's outputs that trips its scope. */
  threshold: number;
  /** Outputs a window must hold before its scope may trip. */
  minVolume: number;
  windowMs: number;
  /** Half-open after this long following an automatic trip; 0 = never. */
  cooldownMs: number;
  /** How long one probe may hold the half-open slot before another may be claimed. */
  probeLeaseMs?: number;
  /** Spiking tenants a fleet-wide trip needs (1: any spike trips the fleet). */
  fleetMinTenants: number;
  /** Spiking tenants an upstream trip needs. */
  upstreamMinTenants: number;
}

export interface WindowFigures {
  total: number;
  invalid: number;
  /** invalid / total, 0 when empty, rounded to 4 places. */
  rate: number;
}

export interface ScopeTrip extends WindowFigures {
  atMs: number;
  at: string;
  tool: string;
  reason: string;
  cause: KillSwitchTripCause | null;
}

/** One scope that is not read_write (or the fleet, always listed first when tripped). */
export interface ScopeState {
  scope: KillSwitchScope;
  scopeId: string;
  mode: KillSwitchMode;
  reason: string | null;
  since: string | null;
  sinceMs: number | null;
  source: string | null;
  /** Outcomes counted in its window since its last reset. */
  window: WindowFigures;
  probeInFlight: boolean;
  lastTrip: ScopeTrip | null;
}

/** One entry of the trip record (newest first). */
export interface TripRecord extends WindowFigures {
  scopeId: string;
  atMs: number;
  at: string;
  tool: string;
  reason: string;
  cause: KillSwitchTripCause;
  tenants: number | null;
  runId: string;
  summary: string;
}

export interface KillSwitchState {
  /** The fleet scope's mode (the other scopes are in `scopes`). */
  mode: KillSwitchMode;
  reason: string | null;
  /** When the current mode began (ISO, Redis time). */
  since: string | null;
  sinceMs: number | null;
  /** Who set the mode: 'auto' (a trip or a probe) or 'operator'. */
  source: string | null;
  window: WindowFigures & { windowMs: number };
  /** Tenants spiking within the fleet window (a fleet trip needs fleetMinTenants of them). */
  spikingTenants: number;
  /** The fleet's last automatic trip, kept after a reset for the record. */
  lastTrip: (ScopeTrip & { tenants: number | null }) | null;
  /** Every scope that is read_only or half_open now: the fleet first, then tenants and upstreams. */
  scopes: ScopeState[];
  /** The last trips of any scope, newest first. */
  recentTrips: TripRecord[];
  settings: { threshold: number; minVolume: number; windowMs: number; cooldownMs: number; fleetMinTenants: number; upstreamMinTenants: number };
}

export type ScopeChangeOutcome = 'tripped' | 'probe_closed' | 'probe_reopened';

/** A scope whose mode an outcome changed. */
export interface ScopeChange {
  scope: KillSwitchScope;
  scopeId: string;
  outcome: ScopeChangeOutcome;
  mode: KillSwitchMode;
  /** For a trip, the window that tripped it. */
  window: WindowFigures;
  atMs: number;
  reason: string;
  /** Why it tripped; null for a probe's outcome. */
  cause: KillSwitchTripCause | null;
  /** Spiking tenants behind a fleet or upstream trip. */
  tenants: number | null;
}

export type OutcomeRecord = {
  /** What happened to the fleet scope (its change, if any, is also in `changes`). */
  outcome: 'recorded' | ScopeChangeOutcome;
  mode: KillSwitchMode;
  /** The fleet window. */
  window: WindowFigures;
  /** Redis time (ms) of the fleet mode's start; for a fleet trip, the trip instant. */
  sinceMs: number;
  /** Every scope this outcome tripped or settled, the fleet's first. */
  changes: ScopeChange[];
};

export type WriteClaim =
  | { verdict: 'allow'; redisTimeMs: number }
  | { verdict: 'probe'; probeToken: string; redisTimeMs: number }
  | { verdict: 'refuse'; mode: KillSwitchMode; reason: string; scope: KillSwitchScope; scopeId: string; redisTimeMs: number };

/** Who a write or an output belongs to. */
export interface KillSwitchSubject {
  runId: string;
  tenant: string;
  /** The call's upstream (kill-switch-scope.ts upstreamOf). */
  upstream: ToolUpstream;
}

const scopeIdSchema = z.string().transform((id, context) => {
  const scope = parseScopeId(id);
  if (!scope) {
    context.addIssue({ code: 'custom', message: `not a kill switch scope: ${id}` });
    return z.NEVER;
  }
  return { id, scope };
});
const modeSchema = z.enum(['read_write', 'read_only', 'half_open']);
const causeSchema = z.enum(KILL_SWITCH_TRIP_CAUSES);
const count = z.number().int().min(0);

// What the scripts return and store, validated like any state read back from Redis.
const changeSchema = z.object({
  scope: scopeIdSchema,
  outcome: z.enum(['tripped', 'probe_closed', 'probe_reopened']),
  mode: modeSchema,
  total: count,
  invalid: count,
  at_ms: z.number(),
  reason: z.string(),
  cause: z.union([causeSchema, z.literal('probe')]),
  tenants: count.optional(),
});
const storedScopeSchema = z.object({
  mode: modeSchema,
  reason: z.string().optional(),
  since_ms: z.number().optional(),
  source: z.string().optional(),
  probe: z.string().optional(),
  probe_until: z.number().optional(),
  floor_ms: z.number().optional(),
  trip: z.object({ at_ms: z.number(), total: count, invalid: count, tool: z.string(), reason: z.string(), cause: causeSchema.optional() }).optional(),
});
const tripRecordSchema = z.object({
  scope: scopeIdSchema,
  at_ms: z.number(),
  total: count,
  invalid: count,
  tool: z.string(),
  reason: z.string(),
  cause: causeSchema,
  tenants: count.optional(),
  run_id: z.string(),
  summary: z.string(),
});

const RECENT_TRIPS = 20;

function figures(total: number, invalid: number): WindowFigures {
  return { total, invalid, rate: total === 0 ? 0 : Math.round((invalid / total) * 10_000) / 10_000 };
}

/** The later of two reset floors (Redis ms), as the scripts apply them. */
function laterFloor(left: number | null, right: number | null): number | null {
  if (left === null) return right;
  if (right === null) return left;
  return Math.max(left, right);
}

/** JSON read back from Redis, or undefined when it does not parse (the schema then rejects it). */
function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

function isoOf(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** The settings of a config. */
export function killSwitchSettingsOf(config: Config): KillSwitchSettings {
  return {
    threshold: config.BUILDFLEET_KILLSWITCH_THRESHOLD,
    minVolume: config.BUILDFLEET_KILLSWITCH_MIN_VOLUME,
    windowMs: config.BUILDFLEET_KILLSWITCH_WINDOW_MS,
    cooldownMs: config.BUILDFLEET_KILLSWITCH_COOLDOWN_MS,
    fleetMinTenants: config.BUILDFLEET_KILLSWITCH_FLEET_MIN_TENANTS,
    upstreamMinTenants: config.BUILDFLEET_KILLSWITCH_UPSTREAM_MIN_TENANTS,
  };
}

/** The refusal a tool result carries: which scope refused, why, and that nothing was written. */
export function describeRefusal(claim: Extract<WriteClaim, { verdict: 'refuse' }>): string {
  return (
    `${describeScope(claim.scope)} is ${claim.mode}${claim.reason ? ` (${claim.reason})` : ''}: ` +
    `write tools are refused and nothing was written. Reads still work.`
  );
}

type SwitchHooks = Pick<ToolSafetyHooks, 'onKillSwitchState' | 'onKillSwitchTrip' | 'onKillSwitchScopeSource'>;

export class KillSwitch implements KillSwitchScopeSource {
  private readonly scripts: KillSwitchScripts;
  private lastSeenMode: KillSwitchMode | null = null;

  constructor(
    private readonly options: {
      redis: RedisClient;
      keys: KeySpace;
      /** The run engine, which keeps the upstreams each run's writes depend on. */
      runUpstreams: RunUpstreams;
      settings: KillSwitchSettings;
      logger?: Logger;
      hooks?: SwitchHooks;
    },
  ) {
    this.scripts = defineKillSwitchScripts(options.redis);
    options.hooks?.onKillSwitchScopeSource?.(this);
  }

  /** A switch over a fleet's Redis and config. */
  static forFleet(fleet: { redis: RedisClient; store: RunUpstreams & { keys: KeySpace }; config: Config; logger?: Logger }, hooks?: SwitchHooks): KillSwitch {
    return new KillSwitch({
      redis: fleet.redis,
      keys: fleet.store.keys,
      runUpstreams: fleet.store,
      settings: killSwitchSettingsOf(fleet.config),
      ...(fleet.logger ? { logger: fleet.logger } : {}),
      ...(hooks ? { hooks } : {}),
    });
  }

  get settings(): KillSwitchSettings {
    return this.options.settings;
  }

  private observe(mode: string): KillSwitchMode {
    const known: KillSwitchMode = isKillSwitchMode(mode) ? mode : 'read_write';
    if (known !== this.lastSeenMode) {
      this.lastSeenMode = known;
      this.options.hooks?.onKillSwitchState?.(known);
    }
    return known;
  }

  /** Records one validated output (valid or not) in the fleet, tenant and upstream windows; trips
   * every scope that must trip, and settles the half-open probes it holds, in the same step. */
  async recordOutcome({
    tool,
    valid,
    reason = '',
    probeToken = '',
    runId,
    tenant,
    upstream,
  }: { tool: string; valid: boolean; reason?: string; probeToken?: string } & KillSwitchSubject): Promise<OutcomeRecord> {
    const { keys, settings, runUpstreams } = this.options;
    const upstreamId = outcomeWindowIdOf(upstream);
    // The run's writes depend on the upstream for a window from now, noted before the outcome can
    // trip its scope (see the header).
    if (upstreamId.startsWith('upstream:')) await runUpstreams.noteRunUpstream(runId, upstreamId, settings.windowMs);
    const [fleetMode, total, invalid, sinceMs, ...rawChanges] = await this.scripts.bfKillSwitchRecord(
      keys.killSwitch(),
      keys.toolOutcomes(),
      killSwitchScopesKey(keys),
      killSwitchTripsKey(keys),
      scopeWindowKey(keys, `tenant:${tenant}`),
      scopeWindowKey(keys, upstreamId),
      scopeTenantsKey(keys, 'fleet'),
      scopeTenantsKey(keys, upstreamId),
      scopeFailingTenantsKey(keys, upstreamId),
      scopeWindowKey(keys, `${upstreamId}:tenant:${tenant}`),
      valid ? '1' : '0',
      settings.windowMs,
      settings.threshold,
      settings.minVolume,
      tool,
      reason,
      probeToken,
      tenant,
      upstreamId,
      settings.fleetMinTenants,
      settings.upstreamMinTenants,
      runId,
    );
    const changes = rawChanges.map((raw): ScopeChange => {
      const change = changeSchema.parse(JSON.parse(raw));
      return {
        scope: change.scope.scope,
        scopeId: change.scope.id,
        outcome: change.outcome,
        mode: change.mode,
        window: figures(change.total, change.invalid),
        atMs: change.at_ms,
        reason: change.reason,
        cause: change.cause === 'probe' ? null : change.cause,
        tenants: change.tenants ?? null,
      };
    });
    const fleetChange = changes.find((change) => change.scope.kind === 'fleet');
    const record: OutcomeRecord = {
      outcome: fleetChange?.outcome ?? 'recorded',
      mode: this.observe(fleetMode),
      window: figures(Number(total), Number(invalid)),
      sinceMs: Number(sinceMs),
      changes,
    };
    for (const change of changes) {
      const fields = { scope: change.scope.kind, scope_id: change.scopeId, tool, reason, run_id: runId, tenant, upstream: upstreamId };
      if (change.outcome === 'tripped') {
        this.options.hooks?.onKillSwitchTrip?.(change.scope.kind, change.cause ?? 'volume');
        this.options.logger?.error(
          {
            event: 'killswitch-trip',
            ...fields,
            cause: change.cause,
            tenants: change.tenants,
            window: change.window,
            window_ms: settings.windowMs,
            threshold: settings.threshold,
            min_volume: settings.minVolume,
            at_ms: change.atMs,
          },
          `kill switch tripped: ${describeScope(change.scope)} is read-only`,
        );
      } else {
        this.options.logger?.warn({ event: `killswitch-${change.outcome.replace('_', '-')}`, ...fields, mode: change.mode }, 'kill switch probe outcome');
      }
    }
    return record;
  }

  /** Asked before a write tool starts: allow, refuse (saying which scope), or let it through as
   * the half-open probe of every half-open scope that covers it. */
  async claimWrite({ runId, tenant, liveUpstreams }: Pick<KillSwitchSubject, 'runId' | 'tenant'> & { liveUpstreams?: readonly string[] }): Promise<WriteClaim> {
    const { keys, settings, runUpstreams } = this.options;
    // The run's live upstreams first, from the engine (a tool job has them already: the engine
    // reads them with the run, RunEngine.loadToolCall); the scopes judge them in the claim's step.
    const listedUpstreams = JSON.stringify(liveUpstreams ?? (await runUpstreams.liveUpstreamsOf(runId)));
    // randomUUID draws from a cached entropy pool; randomBytes(8) went to the system's CSPRNG on
    // every write claim, a measurable share of the claim's CPU.
    const token = `probe_${randomUUID()}`;
    const lease = settings.probeLeaseMs ?? 120_000;
    const [verdict, fleetMode, nowMs, reason, scopeId, scopeMode] = await this.scripts.bfKillSwitchClaimWrite(
      keys.killSwitch(),
      killSwitchScopesKey(keys),
      settings.cooldownMs,
      token,
      lease,
      tenant,
      listedUpstreams,
    );
    this.observe(fleetMode);
    const redisTimeMs = Number(nowMs);
    if (verdict === 'allow') return { verdict, redisTimeMs };
    if (verdict === 'probe') return { verdict, probeToken: token, redisTimeMs };
    const scope = parseScopeId(scopeId) ?? { kind: 'fleet' };
    return { verdict: 'refuse', mode: isKillSwitchMode(scopeMode) ? scopeMode : 'read_only', reason, scope, scopeId: scopeIdOf(scope), redisTimeMs };
  }

  /** Hands back every probe a write held that produced no validated output. */
  async releaseProbe(probeToken: string): Promise<void> {
    await this.scripts.bfKillSwitchReleaseProbe(this.options.keys.killSwitch(), killSwitchScopesKey(this.options.keys), probeToken);
  }

  /** An operator's switch of one scope (the fleet by default): read_only stops the writes it covers
   * until reset; read_write resets it and restarts its window. */
  async setMode({
    mode,
    reason,
    source = 'operator',
    scope = { kind: 'fleet' },
  }: {
    mode: 'read_only' | 'read_write';
    reason: string;
    source?: string;
    scope?: KillSwitchScope;
  }): Promise<KillSwitchState> {
    const { keys } = this.options;
    const scopeId = scopeIdOf(scope);
    const [previous] =
      scope.kind === 'fleet'
        ? await this.scripts.bfKillSwitchSetMode(keys.killSwitch(), keys.toolOutcomes(), scopeTenantsKey(keys, 'fleet'), mode, reason, source)
        : await this.scripts.bfKillSwitchSetScopeMode(
            killSwitchScopesKey(keys),
            scopeTenantsKey(keys, 'fleet'),
            scopeId,
            mode,
            reason,
            source,
            scope.kind === 'tenant' ? scope.tenant : '',
          );
    this.options.logger?.warn(
      { event: 'killswitch-set', scope: scope.kind, scope_id: scopeId, mode, previous, reason, source },
      `kill switch (${scopeId}) set to ${mode}`,
    );
    if (scope.kind === 'fleet') this.observe(mode);
    return this.getState();
  }

  /** Resets the fleet and every tripped or half-open scope (an operator's "incident over"). */
  async resetAll({ reason, source = 'operator' }: { reason: string; source?: string }): Promise<KillSwitchState> {
    const state = await this.getState();
    for (const scope of state.scopes) {
      if (scope.scope.kind !== 'fleet') await this.setMode({ mode: 'read_write', reason, source, scope: scope.scope });
    }
    return this.setMode({ mode: 'read_write', reason, source });
  }

  /** The fleet state and window at one Redis instant, with every scope that is not read_write and
   * the last trips. */
  async getState(): Promise<KillSwitchState> {
    const { keys, settings, redis } = this.options;
    const [flat, total, invalid, , scopeFlat, tripsRaw, spiking] = await this.scripts.bfKillSwitchRead(
      keys.killSwitch(),
      keys.toolOutcomes(),
      killSwitchScopesKey(keys),
      killSwitchTripsKey(keys),
      scopeTenantsKey(keys, 'fleet'),
      settings.windowMs,
      RECENT_TRIPS,
    );
    const fields: Record<string, string> = {};
    for (let index = 0; index + 1 < flat.length; index += 2) fields[flat[index] as string] = flat[index + 1] as string;
    const sinceMs = fields.since_ms ? Number(fields.since_ms) : null;
    const tripAt = fields.trip_at_ms ? Number(fields.trip_at_ms) : null;
    const fleetFloor = fields.floor_ms ? Number(fields.floor_ms) : null;
    const fleetMode: KillSwitchMode = isKillSwitchMode(fields.mode) ? fields.mode : 'read_write';
    const tripCause = causeSchema.safeParse(fields.trip_cause);
    const lastTrip =
      tripAt === null
        ? null
        : {
            ...figures(Number(fields.trip_total ?? 0), Number(fields.trip_invalid ?? 0)),
            atMs: tripAt,
            at: new Date(tripAt).toISOString(),
            tool: fields.trip_tool ?? '',
            reason: fields.trip_reason ?? '',
            cause: tripCause.success ? tripCause.data : null,
            // 0 when the trip recorded no tenants (an operator's read_only).
            tenants: Number(fields.trip_tenants ?? 0) > 0 ? Number(fields.trip_tenants) : null,
          };
    const fleetWindow = figures(Number(total), Number(invalid));

    const entries: Array<{ id: string; scope: KillSwitchScope; stored: z.infer<typeof storedScopeSchema> }> = [];
    for (let index = 0; index + 1 < scopeFlat.length; index += 2) {
      const scope = parseScopeId(scopeFlat[index] as string);
      const stored = storedScopeSchema.safeParse(parseJson(scopeFlat[index + 1] as string));
      // An entry that does not parse is reported, not trusted: the write fence reads the same JSON.
      if (!scope || !stored.success) {
        this.options.logger?.warn({ event: 'killswitch-scope-invalid', scope_id: scopeFlat[index] }, 'kill switch scope entry does not parse');
        continue;
      }
      if (stored.data.mode !== 'read_write') entries.push({ id: scopeFlat[index] as string, scope, stored: stored.data });
    }
    const windows = await readWindowFigures(
      redis,
      entries.map((entry) => ({ key: scopeWindowKey(keys, entry.id), floorMs: laterFloor(entry.stored.floor_ms ?? null, fleetFloor) })),
      settings.windowMs,
    );
    const order: Record<KillSwitchScopeKind, number> = { fleet: 0, tenant: 1, upstream: 2 };
    const scopes: ScopeState[] = entries.map((entry, index) => {
      const since = entry.stored.since_ms ?? null;
      const trip = entry.stored.trip;
      const [windowTotal, windowInvalid] = windows[index] ?? [0, 0];
      return {
        scope: entry.scope,
        scopeId: entry.id,
        mode: entry.stored.mode,
        reason: entry.stored.reason ?? null,
        since: isoOf(since),
        sinceMs: since,
        source: entry.stored.source ?? null,
        window: figures(windowTotal, windowInvalid),
        probeInFlight: entry.stored.probe !== undefined,
        lastTrip: trip
          ? {
              ...figures(trip.total, trip.invalid),
              atMs: trip.at_ms,
              at: new Date(trip.at_ms).toISOString(),
              tool: trip.tool,
              reason: trip.reason,
              cause: trip.cause ?? null,
            }
          : null,
      };
    });
    if (fleetMode !== 'read_write') {
      scopes.push({
        scope: { kind: 'fleet' },
        scopeId: 'fleet',
        mode: fleetMode,
        reason: fields.reason || null,
        since: isoOf(sinceMs),
        sinceMs,
        source: fields.source || null,
        window: fleetWindow,
        probeInFlight: fields.probe !== undefined,
        lastTrip,
      });
    }
    scopes.sort((left, right) => order[left.scope.kind] - order[right.scope.kind] || left.scopeId.localeCompare(right.scopeId));

    const recentTrips: TripRecord[] = [];
    for (const raw of tripsRaw) {
      const parsed = tripRecordSchema.safeParse(parseJson(raw));
      if (!parsed.success) continue;
      const trip = parsed.data;
      recentTrips.push({
        ...figures(trip.total, trip.invalid),
        scopeId: trip.scope.id,
        atMs: trip.at_ms,
        at: new Date(trip.at_ms).toISOString(),
        tool: trip.tool,
        reason: trip.reason,
        cause: trip.cause,
        tenants: trip.tenants ?? null,
        runId: trip.run_id,
        summary: trip.summary,
      });
    }

    return {
      mode: fleetMode,
      reason: fields.reason || null,
      since: isoOf(sinceMs),
      sinceMs,
      source: fields.source || null,
      window: { ...fleetWindow, windowMs: settings.windowMs },
      spikingTenants: Number(spiking),
      lastTrip,
      scopes,
      recentTrips,
      settings: {
        threshold: settings.threshold,
        minVolume: settings.minVolume,
        windowMs: settings.windowMs,
        cooldownMs: settings.cooldownMs,
        fleetMinTenants: settings.fleetMinTenants,
        upstreamMinTenants: settings.upstreamMinTenants,
      },
    };
  }

  /** Every scope that is read_only or half_open now, by kind and mode (for the scopes gauge). */
  async countScopes(): Promise<KillSwitchScopeCount[]> {
    const { redis, keys } = this.options;
    const [fleetMode, entries] = await Promise.all([redis.hget(keys.killSwitch(), 'mode'), redis.hgetall(killSwitchScopesKey(keys))]);
    const counts = new Map<string, KillSwitchScopeCount>();
    const add = (scope: KillSwitchScopeKind, mode: KillSwitchMode) => {
      if (mode === 'read_write') return;
      const entry = counts.get(`${scope}:${mode}`) ?? { scope, mode, count: 0 };
      entry.count += 1;
      counts.set(`${scope}:${mode}`, entry);
    };
    if (isKillSwitchMode(fleetMode)) add('fleet', fleetMode);
    for (const [id, raw] of Object.entries(entries)) {
      const scope = parseScopeId(id);
      const stored = storedScopeSchema.safeParse(parseJson(raw));
      if (scope && stored.success) add(scope.kind, stored.data.mode);
    }
    return [...counts.values()];
  }
}
