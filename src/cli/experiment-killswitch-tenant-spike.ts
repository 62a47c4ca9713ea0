// The kill switch experiment's first case: one tenant's spike stays that tenant's.
//
// Issue #16's incident, replayed on an in-process fleet (simulator, API, sites origin, model and
// tool workers on real Redis): a run of the spiking tenant deploys an SVG and fetches it through
// fetch_url_live again and again (an own-site page must be text/html, so each fetch is an invalid
// output) — on the sites origin every build of the other tenants checks its own deployment on
// (the fleet's own origin is no shared upstream: src/safety/kill-switch-scope.ts). Then the other
// tenants build sites through the simulator.
// Measured, from Redis alone: when the spiking tenant's scope tripped, which scopes are tripped,
// the spiking tenant's writes after its trip (refused, none landed), and the other tenants' builds
// (all succeeded, every write landed, none refused by the kill switch).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UPSTREAM_SVG } from '../dev/faulty-upstream.js';
import { startInProcessFleet, type InProcessFleet } from '../dev/in-process-fleet.js';
import { startPrivateRedis, type PrivateRedis } from '../dev/private-redis.js';
import { jobIds, toolJobSchema } from '../jobs/job-catalog.js';
import { type StoredToolResult, readWriteJournal } from '../engine/index.js';
import { KillSwitch } from '../safety/kill-switch.js';
import type { KillSwitchMode } from '../safety/kill-switch-mode.js';

export interface TenantSpikeExperimentOptions {
  /** fetch_url_live calls of the spiking tenant on its own SVG (default 24, as in the incident). */
  spikeFetches?: number;
  /** Builds of the other tenants through the simulator, after the trip (default 6). */
  builds?: number;
  /** Tenants those builds are spread over (default 2). */
  otherTenants?: number;
  /** Writes the spiking tenant tries after its trip, on a fresh run (default 5). */
  spikeWritesAfterTrip?: number;
  modelWorkers?: number;
  toolWorkers?: number;
  /** How long one build may take (default 60 s). */
  buildTimeoutMs?: number;
  redisUrl?: string;
  env?: Record<string, string>;
  log?: (line: string) => void;
}

export interface TenantSpikeReport {
  spikeTenant: string;
  spikeFetches: number;
  /** The spiking tenant's scope tripped. */
  tripped: boolean;
  trip: { scope: string; atMs: number; total: number; invalid: number; rate: number; reason: string } | null;
  /** Fetches of the spike up to and including the one that tripped it. */
  fetchesUntilTrip: number | null;
  /** Every scope tripped at the end (the spiking tenant's alone when the bound holds). */
  scopesTripped: string[];
  fleetMode: KillSwitchMode;
  spikeWritesRefused: number;
  spikeWritesLandedAfterTrip: number;
  /** The refusal the spiking tenant's writes got (it names the scope). */
  spikeRefusal: string | null;
  builds: number;
  otherTenants: string[];
  buildStatuses: Record<string, number>;
  /** Write journal entries of the other tenants' builds (all after the trip: they started after it). */
  otherWritesLanded: number;
  otherWritesLandedAfterTrip: number;
  otherWritesRefusedByKillSwitch: number;
  violations: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends tool calls through the real tool queue, as the model worker does, and waits for each result. */
function toolCaller(fleet: InProcessFleet) {
  return async (runId: string, name: string, input: unknown, timeoutMs = 15_000): Promise<StoredToolResult> => {
    const toolUseId = `toolu_${randomBytes(8).toString('hex')}`;
    const data = toolJobSchema.parse({ runId, turn: 1, toolUseId, name, input, parseMode: 'native', trace: {} });
    await fleet.fleet.queues.own.tool.add(name, data, { jobId: jobIds.tool(runId, toolUseId), attempts: 3, backoff: { type: 'exponential', delay: 100 } });
    for (const deadline = Date.now() + timeoutMs; ; await sleep(10)) {
      const stored = await fleet.fleet.store.getStoredToolResult(runId, toolUseId);
      if (stored) return stored;
      if (Date.now() > deadline) throw new Error(`no result for ${name} of ${runId} within ${timeoutMs} ms`);
    }
  };
}

/** Runs the tenant case; the report says whether its bounds held (violations empty). */
export async function runTenantSpikeExperiment(options: TenantSpikeExperimentOptions = {}): Promise<TenantSpikeReport> {
  const log = options.log ?? (() => undefined);
  const spikeFetches = options.spikeFetches ?? 24;
  const buildCount = options.builds ?? 6;
  const otherTenants = Array.from({ length: options.otherTenants ?? 2 }, (_, index) => `tenant-${String.fromCharCode(97 + index)}`);
  const spikeTenant = 'tenant-spiky';
  let privateRedis: PrivateRedis | null = null;
  const dataDir = mkdtempSync(join(tmpdir(), 'buildfleet-killswitch-tenant-'));
  const redisUrl = options.redisUrl ?? process.env.REDIS_URL ?? (privateRedis = await startPrivateRedis({ dataDir })).url;
  // Its runs are made by hand (tool calls only, no model job): no reaper, which would resume them
  // and call the model with a made-up name.
  const fleet = await startInProcessFleet({
    redisUrl,
    modelWorkers: options.modelWorkers ?? 2,
    toolWorkers: options.toolWorkers ?? 2,
    env: { BUILDFLEET_REAPER_INTERVAL_MS: '0', ...options.env },
  });
  const { store } = fleet.fleet;
  const killSwitch = KillSwitch.forFleet(fleet.fleet);
  const call = toolCaller(fleet);
  try {
    const settings = killSwitch.settings;
    log(
      `tenant case: kill switch threshold ${settings.threshold}, min volume ${settings.minVolume}, window ${settings.windowMs} ms, ` +
        `fleet-wide at ${settings.fleetMinTenants} tenants, upstream at ${settings.upstreamMinTenants}`,
    );

    // The spiking tenant deploys an SVG and fetches it as a page, again and again.
    const spiky = await store.createRun({ tenant: spikeTenant, prompt: 'spike', model: 'spike', maxTurns: 1, maxTokens: 1, options: {} });
    await store.updateRun(spiky.id, { status: 'running', phase: 'building' });
    await call(spiky.id, 'write_file', { path: 'index.html', content: '<!doctype html><title>Spiky</title><img src="logo.svg">' });
    await call(spiky.id, 'write_file', { path: 'logo.svg', content: UPSTREAM_SVG });
    const deployed = await call(spiky.id, 'deploy', {});
    const siteUrl = (deployed.output as { url?: unknown } | undefined)?.url;
    if (deployed.is_error || typeof siteUrl !== 'string') throw new Error(`the spiking tenant's deploy failed: ${deployed.content}`);
    let fetchesUntilTrip: number | null = null;
    for (let index = 1; index <= spikeFetches; index += 1) {
      await call(spiky.id, 'fetch_url_live', { url: `${siteUrl}logo.svg` });
      if (fetchesUntilTrip === null && (await killSwitch.getState()).scopes.some((scope) => scope.scopeId === `tenant:${spikeTenant}`))
        fetchesUntilTrip = index;
    }
    const afterSpike = await killSwitch.getState();
    const tripRecord = afterSpike.recentTrips.find((trip) => trip.scopeId === `tenant:${spikeTenant}`) ?? null;
    const trip = tripRecord
      ? {
          scope: tripRecord.scopeId,
          atMs: tripRecord.atMs,
          total: tripRecord.total,
          invalid: tripRecord.invalid,
          rate: tripRecord.rate,
          reason: tripRecord.summary,
        }
      : null;
    log(trip ? `${spikeTenant} tripped its scope after ${fetchesUntilTrip} fetches: ${trip.reason}` : `${spikeTenant} did not trip its scope`);

    // The spiking tenant's next run: every write refused, naming its scope.
    const nextSpiky = await store.createRun({ tenant: spikeTenant, prompt: 'after', model: 'after', maxTurns: 1, maxTokens: 1, options: {} });
    await store.updateRun(nextSpiky.id, { status: 'running', phase: 'building' });
    let spikeWritesRefused = 0;
    let spikeRefusal: string | null = null;
    for (let index = 0; index < (options.spikeWritesAfterTrip ?? 5); index += 1) {
      const result = await call(nextSpiky.id, 'write_file', { path: `page-${index}.html`, content: `<p>${index}</p>` });
      if (result.error_code === 'killswitch_read_only') {
        spikeWritesRefused += 1;
        spikeRefusal ??= result.content;
      }
    }

    // The other tenants build, through the simulator, after the trip.
    const buildIds = await Promise.all(
      Array.from(
        { length: buildCount },
        async (_, index) =>
          (await fleet.submit({ tenant: otherTenants[index % otherTenants.length] as string, prompt: `Build a small website for bakery number ${index + 1}.` }))
            .id,
      ),
    );
    log(`submitted ${buildCount} builds of ${otherTenants.join(', ')}`);
    const buildStatuses: Record<string, number> = {};
    for (const runId of buildIds) {
      const run = await fleet.waitForRun(runId, options.buildTimeoutMs ?? 60_000).catch(async () => store.getRun(runId));
      const status = run?.status ?? 'missing';
      buildStatuses[status] = (buildStatuses[status] ?? 0) + 1;
    }

    // Measurements, in Redis time.
    let otherWritesLanded = 0;
    let otherWritesLandedAfterTrip = 0;
    let otherWritesRefused = 0;
    for (const runId of buildIds) {
      for (const entry of await readWriteJournal({ engine: store, runId })) {
        otherWritesLanded += 1;
        if (trip && entry.at_ms > trip.atMs) otherWritesLandedAfterTrip += 1;
      }
      for (const event of await store.readEvents(runId, '-', 100_000)) {
        if (event.event === 'tool-call-end' && event.error_code === 'killswitch_read_only') otherWritesRefused += 1;
      }
    }
    let spikeWritesLandedAfterTrip = 0;
    for (const runId of [spiky.id, nextSpiky.id]) {
      for (const entry of await readWriteJournal({ engine: store, runId })) if (trip && entry.at_ms > trip.atMs) spikeWritesLandedAfterTrip += 1;
    }
    const end = await killSwitch.getState();
    const scopesTripped = end.scopes.map((scope) => scope.scopeId);

    const violations: string[] = [];
    if (!trip) violations.push(`${spikeTenant}'s scope did not trip`);
    if (end.mode !== 'read_write') violations.push(`the fleet went ${end.mode} on one tenant's spike`);
    const others = scopesTripped.filter((scope) => scope !== `tenant:${spikeTenant}`);
    if (others.length > 0) violations.push(`scopes beyond the spiking tenant tripped: ${others.join(', ')}`);
    if (spikeWritesRefused === 0) violations.push(`${spikeTenant}'s writes after its trip were not refused`);
    if (spikeWritesLandedAfterTrip > 0) violations.push(`${spikeWritesLandedAfterTrip} writes of ${spikeTenant} landed after its trip (bound: 0)`);
    if (otherWritesRefused > 0) violations.push(`${otherWritesRefused} writes of the other tenants were refused by the kill switch (bound: 0)`);
    if ((buildStatuses.succeeded ?? 0) !== buildCount) violations.push(`builds of the other tenants: ${JSON.stringify(buildStatuses)} (bound: all succeeded)`);
    if (otherWritesLandedAfterTrip === 0) violations.push('no write of the other tenants landed after the trip');
    return {
      spikeTenant,
      spikeFetches,
      tripped: trip !== null,
      trip,
      fetchesUntilTrip,
      scopesTripped,
      fleetMode: end.mode,
      spikeWritesRefused,
      spikeWritesLandedAfterTrip,
      spikeRefusal,
      builds: buildCount,
      otherTenants,
      buildStatuses,
      otherWritesLanded,
      otherWritesLandedAfterTrip,
      otherWritesRefusedByKillSwitch: otherWritesRefused,
      violations,
    };
  } finally {
    await fleet.close();
    await privateRedis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The tenant case's report as the lines the command prints. */
export function formatTenantSpikeReport(report: TenantSpikeReport): string {
  const rows: Array<[string, string]> = [
    ['spiking tenant', `${report.spikeTenant}: ${report.spikeFetches} fetches of its own SVG through fetch_url_live`],
    [
      'its scope tripped',
      report.trip
        ? `yes, at fetch ${report.fetchesUntilTrip ?? '—'}: ${report.trip.invalid}/${report.trip.total} invalid (${(report.trip.rate * 100).toFixed(1)}%)`
        : 'NO',
    ],
    ['scopes tripped', report.scopesTripped.length > 0 ? report.scopesTripped.join(', ') : 'none'],
    ['fleet scope', report.fleetMode],
    ['its writes after the trip', `${report.spikeWritesRefused} refused, ${report.spikeWritesLandedAfterTrip} landed (bound: 0)`],
    [
      "other tenants' builds",
      `${report.builds} of ${report.otherTenants.join(', ')}: ${Object.entries(report.buildStatuses)
        .map(([status, count]) => `${status} ${count}`)
        .join(', ')}`,
    ],
    ['their writes landed (after the trip)', `${report.otherWritesLanded} (${report.otherWritesLandedAfterTrip})`],
    ['their writes refused by the switch', `${report.otherWritesRefusedByKillSwitch} (bound: 0)`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`);
  lines.push(report.violations.length === 0 ? 'all bounds held' : `VIOLATED: ${report.violations.join('; ')}`);
  return lines.join('\n');
}
