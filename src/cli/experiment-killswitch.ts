// `buildfleet experiment killswitch`: does the scoped kill switch keep one tenant's spike to that
// tenant, and still stop writes fleet-wide, fast and airtight, when the spike is fleet-wide?
// Two cases, each on its own in-process fleet: the tenant case (experiment-killswitch-tenant-spike.ts)
// and the fleet-wide case, this file's:
//
// An in-process fleet (simulator, API, model and tool workers on real Redis) builds many sites at
// once, spread over several tenants, whose prompts carry image URLs on a faulty upstream; a steady
// load of direct tool jobs (fetch_image from the upstream, write_file, list_files on fresh runs of
// those tenants) runs beside them, so outputs keep flowing whether or not the builder fetches the
// prompt's images itself. At a given moment (or after K validated outputs) the upstream breaks —
// for every tenant at once, so the fleet scope must trip. The experiment then measures, from
// Redis time stamps alone:
//   outputs until the trip       validated outputs, from the start and from the flip
//   last write start − trip      write claims (tool-call-start write_claimed_at_ms) vs the trip; < 1 s
//   writes landed after the trip the per-run write journals (stamped inside the write scripts); 0
// and finally resets the switch and shows a write succeeds again. Exit code 1 if a bound fails.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startFaultyUpstream, UPSTREAM_FAULTS, type UpstreamFault } from '../dev/faulty-upstream.js';
import { startInProcessFleet, type InProcessFleet } from '../dev/in-process-fleet.js';
import { startPrivateRedis, type PrivateRedis } from '../dev/private-redis.js';
import { jobIds, toolJobSchema } from '../jobs/job-catalog.js';
import { KillSwitch } from '../safety/kill-switch.js';
import type { ToolJobHooks } from '../tools/run-tool-job.js';
import { readWriteJournal } from '../engine/index.js';
import { isTerminal } from '../domain/run-outcomes.js';
import { WRITE_TOOLS, isToolName } from '../domain/profile.js';
import { formatTenantSpikeReport, runTenantSpikeExperiment, type TenantSpikeReport } from './experiment-killswitch-tenant-spike.js';

export interface KillSwitchExperimentOptions {
  /** Concurrent builds through the simulator (default 40). */
  runs?: number;
  /** Tenants the builds and the load are spread over (default 4; the fleet trips at
   * BUILDFLEET_KILLSWITCH_FLEET_MIN_TENANTS of them). */
  tenants?: number;
  /** Image URLs on the upstream in each build's prompt (default 3). */
  imagesPerRun?: number;
  modelWorkers?: number;
  toolWorkers?: number;
  /** Break the upstream this long after the start (default 2000 ms)… */
  flipAfterMs?: number;
  /** …or once this many outputs were validated, whichever comes first. */
  flipAfterOutputs?: number;
  /** What the broken upstream serves (default maintenance: HTML where images are expected). */
  fault?: UpstreamFault;
  /** Direct load: fresh runs per second, each with 3 fetch_image, 1 write_file, 1 list_files (default 25; 0 = off). */
  loadRunsPerSecond?: number;
  /** Give up waiting for the trip this long after the flip (default 30 s). */
  tripTimeoutMs?: number;
  redisUrl?: string;
  /** More fleet configuration (kill switch threshold, window, modes …). */
  env?: Record<string, string>;
  log?: (line: string) => void;
}

export interface KillSwitchExperimentReport {
  runs: number;
  tenants: number;
  loadRuns: number;
  fault: UpstreamFault;
  tripped: boolean;
  /** Validated outputs (valid or not) from the start up to and including the one that tripped. */
  outputsUntilTrip: number | null;
  outputsFromFlipUntilTrip: number | null;
  msFromFlipToTrip: number | null;
  trip: { atMs: number; total: number; invalid: number; rate: number; tool: string; reason: string; cause: string | null; tenants: number | null } | null;
  /** Tenant and upstream scopes that tripped before the fleet did (they stop the writes they cover earlier). */
  narrowerTripsBeforeFleet: string[];
  /** Latest write claim minus the trip (Redis ms); negative: the last write started before it. */
  lastWriteStartMsAfterTrip: number | null;
  writesStartedAfterTrip: number;
  writesLandedBeforeTrip: number;
  writesLandedAfterTrip: number;
  writesRefusedByKillSwitch: number;
  readsSucceededAfterTrip: number;
  runStatuses: Record<string, number>;
  /** Error codes of the builds that did not succeed (a build whose writes are refused fails). */
  runErrors: Record<string, number>;
  resetWriteSucceeded: boolean;
  violations: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function redisTimeMs(fleet: InProcessFleet): Promise<number> {
  const [seconds, micros] = await fleet.fleet.redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** Runs the experiment; the report says whether the bounds held (violations empty). */
export async function runKillSwitchExperiment(options: KillSwitchExperimentOptions = {}): Promise<KillSwitchExperimentReport> {
  const log = options.log ?? (() => undefined);
  const runCount = options.runs ?? 40;
  const imagesPerRun = options.imagesPerRun ?? 3;
  const fault = options.fault ?? 'maintenance';
  const loadRate = options.loadRunsPerSecond ?? 25;
  const tenants = Array.from({ length: options.tenants ?? 4 }, (_, index) => `tenant-${index + 1}`);
  const tenantOf = (index: number) => tenants[index % tenants.length] as string;
  let privateRedis: PrivateRedis | null = null;
  const dataDir = mkdtempSync(join(tmpdir(), 'buildfleet-killswitch-'));
  const redisUrl = options.redisUrl ?? process.env.REDIS_URL ?? (privateRedis = await startPrivateRedis({ dataDir })).url;
  const upstream = await startFaultyUpstream({ fault });

  // Counted from the tool workers' hooks (all in this process).
  let validated = 0;
  let validatedAtFlip: number | null = null;
  let validatedAtTrip: number | null = null;
  let tripSeenAt: number | null = null;
  let readsAfterTrip = 0;
  let refusedByKillSwitch = 0;
  const hooks: ToolJobHooks = {
    onToolResult({ tool, status, errorCode }) {
      if (status !== 'error' || errorCode === 'ToolOutputInvalid') validated += 1;
      if (tripSeenAt !== null && status !== 'error' && isToolName(tool) && !WRITE_TOOLS.has(tool)) readsAfterTrip += 1;
    },
    onKillSwitchState(mode) {
      if (mode === 'read_only' && tripSeenAt === null) {
        tripSeenAt = Date.now();
        // The tripping output is counted just after this hook.
        validatedAtTrip = validated + 1;
      }
    },
    onWriteRefused(_tool, cause) {
      if (cause === 'killswitch') refusedByKillSwitch += 1;
    },
  };

  const fleet = await startInProcessFleet({
    redisUrl,
    modelWorkers: options.modelWorkers ?? 2,
    toolWorkers: options.toolWorkers ?? 2,
    toolWorker: { hooks },
    // Its load runs are made by hand (tool calls only, no model job), so the reaper — which resumes
    // runs with no live job — is off here: resuming them would call the model with a made-up name.
    env: { BUILDFLEET_FETCH_ALLOWLIST: upstream.origin, BUILDFLEET_REAPER_INTERVAL_MS: '0', ...options.env },
  });
  const { store } = fleet.fleet;
  const killSwitch = KillSwitch.forFleet(fleet.fleet);
  const runIds: string[] = [];
  const loadRunIds: string[] = [];
  try {
    const settings = killSwitch.settings;
    log(
      `fleet up: ${options.toolWorkers ?? 2} tool workers, ${options.modelWorkers ?? 2} model workers; upstream ${upstream.origin}; ` +
        `kill switch threshold ${settings.threshold}, min volume ${settings.minVolume}, window ${settings.windowMs} ms`,
    );
    const started = Date.now();
    const extensions = ['png', 'svg', 'jpg'];
    await Promise.all(
      Array.from({ length: runCount }, async (_, index) => {
        const images = Array.from({ length: imagesPerRun }, (_unused, image) => `${upstream.origin}/images/run-${index}-${image}.${extensions[image % 3]}`);
        const run = await fleet.submit({
          tenant: tenantOf(index),
          prompt: `Build a small website for bakery number ${index + 1}. Use these photos: ${images.join(' ')}`,
        });
        runIds.push(run.id);
      }),
    );
    log(`submitted ${runCount} builds of ${tenants.length} tenants with ${imagesPerRun} upstream images each`);

    // The direct load: fresh runs with image fetches, a write and a read each.
    let loadStopped = false;
    const loadJob = async (runId: string, name: string, input: unknown) => {
      const toolUseId = `toolu_${randomBytes(8).toString('hex')}`;
      const data = toolJobSchema.parse({ runId, turn: 1, toolUseId, name, input, parseMode: 'native', trace: {} });
      await fleet.fleet.queues.own.tool.add(name, data, { jobId: jobIds.tool(runId, toolUseId), attempts: 3, backoff: { type: 'exponential', delay: 200 } });
    };
    const load = (async () => {
      if (loadRate <= 0) return;
      let sequence = 0;
      while (!loadStopped) {
        const run = await store.createRun({ tenant: tenantOf(sequence), prompt: 'load', model: 'load', maxTurns: 1, maxTokens: 1, options: {} });
        await store.updateRun(run.id, { status: 'running', phase: 'building' });
        loadRunIds.push(run.id);
        sequence += 1;
        await Promise.all([
          ...[0, 1, 2].map((image) =>
            loadJob(run.id, 'fetch_image', {
              url: `${upstream.origin}/load/${sequence}-${image}.${extensions[image]}`,
              path: `images/${image}.${extensions[image]}`,
            }),
          ),
          loadJob(run.id, 'write_file', { path: 'index.html', content: `<h1>Load ${sequence}</h1>` }),
          loadJob(run.id, 'list_files', {}),
        ]);
        await sleep(1000 / loadRate);
      }
    })();

    // The flip.
    const flipAfterMs = options.flipAfterMs ?? 2000;
    while (Date.now() - started < flipAfterMs && (options.flipAfterOutputs === undefined || validated < options.flipAfterOutputs)) await sleep(5);
    upstream.setMode('broken', fault);
    validatedAtFlip = validated;
    const flipAtMs = await redisTimeMs(fleet);
    log(`upstream broken (${fault}) after ${Date.now() - started} ms and ${validated} validated outputs`);

    // The trip.
    const tripDeadline = Date.now() + (options.tripTimeoutMs ?? 30_000);
    let state = await killSwitch.getState();
    while (state.mode === 'read_write' && Date.now() < tripDeadline) {
      await sleep(10);
      state = await killSwitch.getState();
    }
    const tripped = state.mode !== 'read_write' && state.lastTrip !== null;
    if (tripped) log(`kill switch tripped: ${state.reason}`);
    else log('the kill switch did not trip');
    // Keep the load on for a second after the trip: writes must be refused, reads must go on.
    await sleep(1000);
    loadStopped = true;
    await load;

    // Let the queue drain and the builds settle.
    const settleDeadline = Date.now() + 60_000;
    for (;;) {
      const counts = await fleet.fleet.queues.own.tool.getJobCounts('wait', 'active', 'delayed', 'prioritized');
      const pending = Object.values(counts).reduce((sum, count) => sum + count, 0);
      const runsOpen = (await Promise.all(runIds.map((id) => store.getRun(id)))).filter(
        (run) => run && !isTerminal(run.status) && run.status !== 'waiting_for_input',
      ).length;
      if ((pending === 0 && runsOpen === 0) || Date.now() > settleDeadline) break;
      await sleep(100);
    }

    // Measurements, in Redis time.
    const trip = state.lastTrip
      ? {
          atMs: state.lastTrip.atMs,
          total: state.lastTrip.total,
          invalid: state.lastTrip.invalid,
          rate: state.lastTrip.rate,
          tool: state.lastTrip.tool,
          reason: state.lastTrip.reason,
          cause: state.lastTrip.cause,
          tenants: state.lastTrip.tenants,
        }
      : null;
    const narrowerTripsBeforeFleet = trip
      ? (await killSwitch.getState()).recentTrips.filter((entry) => entry.scopeId !== 'fleet' && entry.atMs <= trip.atMs).map((entry) => entry.scopeId)
      : [];
    let lastClaim: number | null = null;
    let startedAfter = 0;
    let landedBefore = 0;
    let landedAfter = 0;
    for (const runId of [...runIds, ...loadRunIds]) {
      for (const event of await store.readEvents(runId, '-', 100_000)) {
        const claimed = event.event === 'tool-call-start' ? event.write_claimed_at_ms : undefined;
        if (typeof claimed !== 'number') continue;
        lastClaim = lastClaim === null ? claimed : Math.max(lastClaim, claimed);
        if (trip && claimed > trip.atMs) startedAfter += 1;
      }
      for (const entry of await readWriteJournal({ engine: store, runId })) {
        if (trip && entry.at_ms > trip.atMs) landedAfter += 1;
        else landedBefore += 1;
      }
    }
    const runStatuses: Record<string, number> = {};
    const runErrors: Record<string, number> = {};
    for (const runId of runIds) {
      const run = await store.getRun(runId);
      const status = run?.status ?? 'missing';
      runStatuses[status] = (runStatuses[status] ?? 0) + 1;
      if (run?.error) runErrors[run.error.code] = (runErrors[run.error.code] ?? 0) + 1;
    }

    // Reset every scope, and show a write succeeds again.
    upstream.setMode('valid');
    await killSwitch.resetAll({ reason: 'experiment: upstream repaired' });
    const probeRun = await store.createRun({ tenant: tenantOf(0), prompt: 'after reset', model: 'load', maxTurns: 1, maxTokens: 1, options: {} });
    await store.updateRun(probeRun.id, { status: 'running', phase: 'building' });
    const probeId = `toolu_${randomBytes(8).toString('hex')}`;
    await fleet.fleet.queues.own.tool.add(
      'write_file',
      toolJobSchema.parse({
        runId: probeRun.id,
        turn: 1,
        toolUseId: probeId,
        name: 'write_file',
        input: { path: 'index.html', content: '<h1>Back</h1>' },
        parseMode: 'native',
        trace: {},
      }),
      {
        jobId: jobIds.tool(probeRun.id, probeId),
      },
    );
    let resetWriteSucceeded = false;
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(20)) {
      const result = await store.getStoredToolResult(probeRun.id, probeId);
      if (result) {
        resetWriteSucceeded = !result.is_error && (await store.readFile(probeRun.id, 'index.html')) === '<h1>Back</h1>';
        break;
      }
    }

    const lastWriteStartMsAfterTrip = trip && lastClaim !== null ? lastClaim - trip.atMs : null;
    const violations: string[] = [];
    if (!tripped) violations.push('the kill switch did not trip');
    if (lastWriteStartMsAfterTrip !== null && lastWriteStartMsAfterTrip >= 1000)
      violations.push(`a write started ${lastWriteStartMsAfterTrip} ms after the trip (bound: < 1000 ms)`);
    if (landedAfter > 0) violations.push(`${landedAfter} writes landed after the trip (bound: 0)`);
    if (!resetWriteSucceeded) violations.push('no write succeeded after the reset');
    return {
      runs: runCount,
      tenants: tenants.length,
      loadRuns: loadRunIds.length,
      fault,
      tripped,
      outputsUntilTrip: validatedAtTrip,
      outputsFromFlipUntilTrip: validatedAtTrip !== null && validatedAtFlip !== null ? validatedAtTrip - validatedAtFlip : null,
      msFromFlipToTrip: trip ? trip.atMs - flipAtMs : null,
      trip,
      narrowerTripsBeforeFleet,
      lastWriteStartMsAfterTrip,
      writesStartedAfterTrip: startedAfter,
      writesLandedBeforeTrip: landedBefore,
      writesLandedAfterTrip: landedAfter,
      writesRefusedByKillSwitch: refusedByKillSwitch,
      readsSucceededAfterTrip: readsAfterTrip,
      runStatuses,
      runErrors,
      resetWriteSucceeded,
      violations,
    };
  } finally {
    await fleet.close();
    await upstream.close();
    await privateRedis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The report as the lines the command prints. */
export function formatKillSwitchReport(report: KillSwitchExperimentReport): string {
  const rows: Array<[string, string]> = [
    ['builds (+ direct load runs)', `${report.runs} (+${report.loadRuns}) of ${report.tenants} tenants`],
    ['upstream fault', report.fault],
    [
      'fleet scope tripped',
      report.tripped
        ? `yes: ${report.trip?.invalid}/${report.trip?.total} invalid ` +
          `(${((report.trip?.rate ?? 0) * 100).toFixed(1)}%) in the window; cause ${report.trip?.cause ?? '—'} (${report.trip?.tenants ?? '—'} tenants)`
        : 'NO',
    ],
    ['narrower scopes tripped before it', report.narrowerTripsBeforeFleet.length > 0 ? report.narrowerTripsBeforeFleet.join(', ') : 'none'],
    [
      'outputs until the trip',
      `${report.outputsUntilTrip ?? '—'} (${report.outputsFromFlipUntilTrip ?? '—'} after the flip, ${report.msFromFlipToTrip ?? '—'} ms)`,
    ],
    ['last write start − trip', report.lastWriteStartMsAfterTrip === null ? '—' : `${report.lastWriteStartMsAfterTrip} ms (bound < 1000 ms)`],
    ['write claims after the trip', String(report.writesStartedAfterTrip)],
    ['writes landed before / after the trip', `${report.writesLandedBeforeTrip} / ${report.writesLandedAfterTrip} (bound: 0 after)`],
    ['writes refused by the kill switch', String(report.writesRefusedByKillSwitch)],
    ['reads that succeeded after the trip', String(report.readsSucceededAfterTrip)],
    [
      'build outcomes',
      Object.entries(report.runStatuses)
        .map(([status, count]) => `${status} ${count}`)
        .join(', ') +
        (Object.keys(report.runErrors).length > 0
          ? ` (${Object.entries(report.runErrors)
              .map(([code, count]) => `${code} ${count}`)
              .join(', ')})`
          : ''),
    ],
    ['write after reset', report.resetWriteSucceeded ? 'succeeded' : 'FAILED'],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`);
  lines.push(report.violations.length === 0 ? 'all bounds held' : `VIOLATED: ${report.violations.join('; ')}`);
  return lines.join('\n');
}

/** `buildfleet experiment killswitch [--case both|tenant|fleet] [--runs N] [--tenants N] [--images N]
 * [--flip-after-ms MS] [--flip-after-outputs K] [--fault F] [--load-rate R] [--spike-fetches N]
 * [--builds N] [--model-workers N] [--tool-workers N] [--json]`; returns the exit code. */
export async function runKillSwitchExperimentCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      case: { type: 'string', default: 'both' },
      runs: { type: 'string', default: '40' },
      tenants: { type: 'string', default: '4' },
      images: { type: 'string', default: '3' },
      'flip-after-ms': { type: 'string', default: '2000' },
      'flip-after-outputs': { type: 'string' },
      fault: { type: 'string', default: 'maintenance' },
      'load-rate': { type: 'string', default: '25' },
      'spike-fetches': { type: 'string', default: '24' },
      builds: { type: 'string', default: '6' },
      'model-workers': { type: 'string', default: '2' },
      'tool-workers': { type: 'string', default: '2' },
      json: { type: 'boolean', default: false },
    },
  });
  const whole = (name: string, value: string | undefined, min: number, max: number): number => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < min || number > max) throw new Error(`--${name} must be a whole number from ${min} to ${max}`);
    return number;
  };
  const which = values.case;
  if (which !== 'both' && which !== 'tenant' && which !== 'fleet') throw new Error('--case must be both, tenant or fleet');
  const fault = values.fault as UpstreamFault;
  if (!(UPSTREAM_FAULTS as readonly string[]).includes(fault)) throw new Error(`--fault must be one of ${UPSTREAM_FAULTS.join(', ')}`);
  const workers = { modelWorkers: whole('model-workers', values['model-workers'], 1, 64), toolWorkers: whole('tool-workers', values['tool-workers'], 1, 64) };
  const log = (line: string) => console.error(line);

  let tenantCase: TenantSpikeReport | null = null;
  let fleetCase: KillSwitchExperimentReport | null = null;
  if (which !== 'fleet') {
    tenantCase = await runTenantSpikeExperiment({
      spikeFetches: whole('spike-fetches', values['spike-fetches'], 1, 10_000),
      builds: whole('builds', values.builds, 1, 500),
      ...workers,
      log,
    });
  }
  if (which !== 'tenant') {
    fleetCase = await runKillSwitchExperiment({
      runs: whole('runs', values.runs, 1, 5000),
      tenants: whole('tenants', values.tenants, 1, 1000),
      imagesPerRun: whole('images', values.images, 0, 20),
      flipAfterMs: whole('flip-after-ms', values['flip-after-ms'], 0, 600_000),
      ...(values['flip-after-outputs'] !== undefined ? { flipAfterOutputs: whole('flip-after-outputs', values['flip-after-outputs'], 0, 10_000_000) } : {}),
      fault,
      loadRunsPerSecond: whole('load-rate', values['load-rate'], 0, 1000),
      ...workers,
      log,
    });
  }
  if (values.json) {
    console.log(JSON.stringify({ tenantCase, fleetCase }, null, 2));
  } else {
    const sections: string[] = [];
    if (tenantCase) sections.push(`== one tenant's spike ==\n${formatTenantSpikeReport(tenantCase)}`);
    if (fleetCase) sections.push(`== a fleet-wide spike ==\n${formatKillSwitchReport(fleetCase)}`);
    console.log(sections.join('\n\n'));
  }
  return (tenantCase?.violations.length ?? 0) + (fleetCase?.violations.length ?? 0) === 0 ? 0 : 1;
}
