// `buildfleet experiment soak` (issue #21): does Redis stay flat when every finished run is archived
// to PostgreSQL and its keys expire, under a `maxmemory` the old behaviour outgrows?
//
// Two halves, each a fresh fleet of separate processes (private Redis, simulator, API, model and
// tool workers, as `buildfleet dev` runs them) on one private PostgreSQL, the same builds each time,
// `--in-flight` at once until `--runs` have ended:
//
//   keys kept   retention 30 days: every run is archived, but nothing leaves Redis during the
//               experiment — Redis as it was before issue #21. Its growth per run is measured.
//   archived    retention `--retention-s` (default 5 s), and Redis capped first: `CONFIG SET
//               maxmemory` to its memory at start plus half of what the first half grew by, so the
//               first half ended at about twice the cap. Redis runs `noeviction` (the queues need
//               it), so going over the cap would fail writes — and builds. The queues keep
//               `--completed-jobs-kept` (default 2,000) completed jobs each instead of 50,000
//               (BUILDFLEET_COMPLETED_JOBS_KEPT): the bound the queues' memory levels off at, reached
//               here after ~150 builds instead of ~3,300 — what a soak of minutes can show.
//
// Bounds (exit 0): every build of the archived half ended and succeeded as often as in the first,
// no POST failed, none lost from history, no run record left in Redis, its peak under its cap
// (which the first half's peak passed by construction: twice the cap's headroom), and its growth per run over the second half of the
// builds under a tenth of the first half's.
//
// For each half it prints builds ended (by outcome), runs found in PostgreSQL, Redis `used_memory`
// at start, at its peak and after the last retention passed, and the growth per ended run over the
// second half of the builds (a flat Redis grows ~0 bytes per run there). Memory is sampled every
// second from INFO. A run counts as lost from history when it ended but has no `runs` row once
// archiving had `--archive-wait-s` to catch up.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import { startPrivatePostgres, type PrivatePostgres } from '../dev/private-postgres.js';
import { migrateHistory } from '../history/migrate-history.js';
import { TERMINAL_STATUSES } from '../domain/run-outcomes.js';
import { createKeySpace, RunEngine } from '../engine/index.js';
import { ApiClient } from './api-client.js';
import { startDevFleet } from './dev-fleet.js';

export interface SoakOptions {
  runs: number;
  inFlight: number;
  retentionSeconds: number;
  /** BUILDFLEET_COMPLETED_JOBS_KEPT of the archived half (the kept half has the default, 50,000). */
  completedJobsKept: number;
  /** How long archiving may take to catch up after the last build ended. */
  archiveWaitMs: number;
  /** Bound of each half's builds. */
  timeoutMs: number;
  /** An existing PostgreSQL (its database is used as is, migrated first); else a private one. */
  databaseUrl?: string;
  log?: (line: string) => void;
}

export interface MemorySample {
  atMs: number;
  ended: number;
  usedBytes: number;
}

export interface SoakHalfResult {
  half: 'keys kept' | 'archived';
  retentionSeconds: number;
  completedJobsKept: number;
  /** The cap set on Redis for this half, or null (none). */
  maxmemoryBytes: number | null;
  runs: number;
  succeeded: number;
  /** Ended otherwise, by error code (or status). */
  failedBy: Record<string, number>;
  /** POST /v1/runs that failed (Redis refusing writes over its cap shows here first). */
  submitFailures: number;
  unfinished: number;
  /** Ended runs with a `runs` row in PostgreSQL. */
  archived: number;
  /** Ended runs with no `runs` row after the archive wait. */
  lostFromHistory: number;
  /** Ended runs whose record was still in Redis after the last retention passed. */
  stillInRedis: number;
  startBytes: number;
  peakBytes: number;
  finalBytes: number;
  /** Least-squares slope of used_memory over ended runs, second half of the builds. */
  bytesPerRunLateHalf: number;
  wallMs: number;
  samples: MemorySample[];
}

export interface SoakResult {
  keysKept: SoakHalfResult;
  archived: SoakHalfResult;
  /** The second half stayed under its cap, lost no run from history and grew (nearly) flat. */
  boundsHeld: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const KEYS_KEPT_RETENTION_SECONDS = 30 * 24 * 3600;
/** "Flat": the late-half growth per run is under this share of the keys-kept half's. */
const FLAT_SHARE = 0.1;

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  const match = /^used_memory:(\d+)/m.exec(info);
  if (!match) throw new Error('Redis INFO memory has no used_memory line');
  return Number(match[1]);
}

/** Slope (bytes per ended run) of the samples taken while the second half of the builds ended. */
export function lateHalfSlope(samples: readonly MemorySample[], runs: number): number {
  const late = samples.filter((sample) => sample.ended >= runs / 2);
  if (late.length < 2) return Number.NaN;
  const meanX = late.reduce((sum, sample) => sum + sample.ended, 0) / late.length;
  const meanY = late.reduce((sum, sample) => sum + sample.usedBytes, 0) / late.length;
  let numerator = 0;
  let denominator = 0;
  for (const sample of late) {
    numerator += (sample.ended - meanX) * (sample.usedBytes - meanY);
    denominator += (sample.ended - meanX) ** 2;
  }
  return denominator === 0 ? Number.NaN : numerator / denominator;
}

async function runHalf({
  options,
  half,
  databaseUrl,
  capGrowthBytes,
}: {
  options: SoakOptions;
  half: SoakHalfResult['half'];
  databaseUrl: string;
  /** Set maxmemory to the memory at start plus this (the archived half). */
  capGrowthBytes: number | null;
}): Promise<SoakHalfResult> {
  const log = options.log ?? (() => undefined);
  const retentionSeconds = half === 'keys kept' ? KEYS_KEPT_RETENTION_SECONDS : options.retentionSeconds;
  const prefix = half === 'keys kept' ? 'soakkept' : 'soakarch';
  const dataDir = await mkdtemp(join(tmpdir(), 'bf-soak-redis-'));
  const fleet = await startDevFleet({
    writeStateFile: false,
    dataDir,
    echo: null,
    env: {
      BUILDFLEET_PREFIX: prefix,
      DATABASE_URL: databaseUrl,
      BUILDFLEET_RUN_RETENTION_SECONDS: String(retentionSeconds),
      ...(half === 'archived' ? { BUILDFLEET_COMPLETED_JOBS_KEPT: String(options.completedJobsKept) } : {}),
      BUILDFLEET_MAX_CONCURRENT_RUNS: '0',
      BUILDFLEET_RATE_LIMIT_PER_MINUTE: '0',
      ANTHROPIC_API_KEY: '',
      // info: the dev fleet waits for each worker's "worker started" line (the output is kept, not shown).
      LOG_LEVEL: 'info',
    },
  });
  const redis = new Redis(fleet.redisUrl, { maxRetriesPerRequest: 3 });
  redis.on('error', () => undefined);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const samples: MemorySample[] = [];
  try {
    const startBytes = await usedMemory(redis);
    const maxmemoryBytes = capGrowthBytes === null ? null : startBytes + capGrowthBytes;
    if (maxmemoryBytes !== null) await redis.config('SET', 'maxmemory', String(maxmemoryBytes));
    const client = new ApiClient(fleet.apiUrl, fleet.apiKey);
    const started = Date.now();
    const deadline = started + options.timeoutMs;
    const ends = new Map<string, { status: string; errorCode: string | null }>();
    let submitted = 0;
    let submitFailures = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        samples.push({ atMs: Date.now() - started, ended: ends.size, usedBytes: await usedMemory(redis) });
        await sleep(1000);
      }
    })();
    // --in-flight loops, each submitting a build and following it to its end, until --runs ended.
    const loop = async () => {
      while (submitted < options.runs && Date.now() < deadline) {
        const index = submitted;
        submitted += 1;
        let id: string;
        try {
          id = (await client.request<{ id: string }>('POST', '/v1/runs', { prompt: `Build a landing page for Harbor Bakery number ${index + 1}.` })).id;
        } catch (error) {
          submitFailures += 1;
          log(`${half}: POST /v1/runs failed: ${error instanceof Error ? error.message : String(error)}`);
          await sleep(1000);
          continue;
        }
        while (Date.now() < deadline) {
          const run = await client.request<{ status: string; error: { code: string } | null }>('GET', `/v1/runs/${id}`).catch(() => null);
          if (run && (TERMINAL_STATUSES as readonly string[]).includes(run.status)) {
            ends.set(id, { status: run.status, errorCode: run.error?.code ?? null });
            break;
          }
          await sleep(300);
        }
        if (ends.size % 50 === 0 && ends.has(id)) log(`${half}: ${ends.size} / ${options.runs} ended, Redis ${(samples.at(-1)?.usedBytes ?? 0) / 1e6} MB`);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, options.inFlight) }, loop));
    const buildsWallMs = Date.now() - started;
    const ended = [...ends.keys()];

    // Archiving catches up, then the last retention passes.
    const countArchived = async () =>
      Number((await pool.query<{ count: string }>('SELECT count(*) FROM runs WHERE id = ANY($1::text[])', [ended])).rows[0]!.count);
    const archiveDeadline = Date.now() + options.archiveWaitMs;
    let archived = await countArchived();
    while (archived < ended.length && Date.now() < archiveDeadline) {
      await sleep(500);
      archived = await countArchived();
    }
    if (half === 'archived') await sleep((retentionSeconds + 2) * 1000);
    sampling = false;
    await sampler;
    const finalBytes = await usedMemory(redis);
    // Through the engine, which alone knows a run's keys: a record it does not find is gone.
    const engine = new RunEngine(redis, createKeySpace(prefix));
    const stillInRedis = (await engine.runStatuses(ended)).filter((reading) => reading.state !== 'missing').length;
    const failedBy: Record<string, number> = {};
    for (const end of ends.values()) {
      if (end.status === 'succeeded') continue;
      const key = end.errorCode ?? end.status;
      failedBy[key] = (failedBy[key] ?? 0) + 1;
    }
    return {
      half,
      retentionSeconds,
      completedJobsKept: half === 'archived' ? options.completedJobsKept : 50_000,
      maxmemoryBytes,
      runs: options.runs,
      succeeded: [...ends.values()].filter((end) => end.status === 'succeeded').length,
      failedBy,
      submitFailures,
      unfinished: options.runs - ends.size,
      archived,
      lostFromHistory: ended.length - archived,
      stillInRedis,
      startBytes,
      peakBytes: Math.max(startBytes, finalBytes, ...samples.map((sample) => sample.usedBytes)),
      finalBytes,
      bytesPerRunLateHalf: lateHalfSlope(samples, options.runs),
      wallMs: buildsWallMs,
      samples,
    };
  } finally {
    await pool.end();
    redis.disconnect();
    await fleet.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

type HalfFigures = Pick<
  SoakHalfResult,
  'unfinished' | 'succeeded' | 'submitFailures' | 'lostFromHistory' | 'stillInRedis' | 'maxmemoryBytes' | 'peakBytes' | 'bytesPerRunLateHalf'
>;

/** The archived half held every bound: it finished what the keys-kept half did, lost nothing from
 * history, left no run in Redis, stayed under its cap, and grew at most FLAT_SHARE of the keys-kept
 * half's late-half growth per run. Growth, not its size: a Redis that shrank in the late half (the
 * archive expiring more than the builds added) is flat — taking the absolute value once failed a
 * healthy run whose Redis shrank 14.9 KB per run against a bound of 14.8. */
export function soakBoundsHeld(keysKept: HalfFigures, archived: HalfFigures): boolean {
  return (
    archived.unfinished === 0 &&
    archived.succeeded >= keysKept.succeeded &&
    archived.submitFailures === 0 &&
    archived.lostFromHistory === 0 &&
    archived.stillInRedis === 0 &&
    archived.maxmemoryBytes !== null &&
    archived.peakBytes <= archived.maxmemoryBytes &&
    archived.bytesPerRunLateHalf <= FLAT_SHARE * keysKept.bytesPerRunLateHalf
  );
}

export async function runSoakExperiment(options: SoakOptions): Promise<SoakResult> {
  let privatePostgres: PrivatePostgres | null = null;
  try {
    const databaseUrl = options.databaseUrl ?? (privatePostgres = await startPrivatePostgres({ quiet: true })).url;
    await migrateHistory({ databaseUrl });
    const keysKept = await runHalf({ options, half: 'keys kept', databaseUrl, capGrowthBytes: null });
    const growth = Math.max(1, keysKept.peakBytes - keysKept.startBytes);
    const archived = await runHalf({ options, half: 'archived', databaseUrl, capGrowthBytes: Math.round(growth / 2) });
    return { keysKept, archived, boundsHeld: soakBoundsHeld(keysKept, archived) };
  } finally {
    await privatePostgres?.stop();
  }
}

const mb = (bytes: number | null) => (bytes === null ? '—' : `${(bytes / 1e6).toFixed(1)} MB`);

export function formatSoakTable(result: SoakResult): string {
  const rows: Array<[string, (half: SoakHalfResult) => string]> = [
    ['retention', (half) => (half.retentionSeconds >= KEYS_KEPT_RETENTION_SECONDS ? '30 d (kept)' : `${half.retentionSeconds} s`)],
    ['completed jobs kept / queue', (half) => half.completedJobsKept.toLocaleString('en-US')],
    ['Redis maxmemory', (half) => mb(half.maxmemoryBytes)],
    ['builds ended / asked', (half) => `${half.runs - half.unfinished} / ${half.runs}`],
    ['succeeded', (half) => String(half.succeeded)],
    [
      'ended otherwise',
      (half) =>
        Object.entries(half.failedBy)
          .map(([code, count]) => `${code} ${count}`)
          .join(', ') || '0',
    ],
    ['POST /v1/runs failed', (half) => String(half.submitFailures)],
    ['in PostgreSQL / lost', (half) => `${half.archived} / ${half.lostFromHistory}`],
    ['run records left in Redis', (half) => String(half.stillInRedis)],
    ['Redis used_memory start', (half) => mb(half.startBytes)],
    ['Redis used_memory peak', (half) => mb(half.peakBytes)],
    ['Redis used_memory final', (half) => mb(half.finalBytes)],
    ['growth per run, late half', (half) => `${(half.bytesPerRunLateHalf / 1024).toFixed(1)} KB`],
    ['builds wall time', (half) => `${(half.wallMs / 1000).toFixed(0)} s`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = [`${''.padEnd(width)}  ${'keys kept'.padEnd(16)}  archived`];
  for (const [label, value] of rows) lines.push(`${label.padEnd(width)}  ${value(result.keysKept).padEnd(16)}  ${value(result.archived)}`);
  lines.push(`bounds held: ${result.boundsHeld ? 'yes' : 'NO'}`);
  return lines.join('\n');
}

export async function runSoakExperimentCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', default: '400' },
      'in-flight': { type: 'string', default: '40' },
      'retention-s': { type: 'string', default: '5' },
      'completed-jobs-kept': { type: 'string', default: '2000' },
      'archive-wait-s': { type: 'string', default: '120' },
      'timeout-s': { type: 'string', default: '1800' },
      json: { type: 'boolean', default: false },
    },
  });
  const positive = (name: string, raw: string | undefined) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive whole number, not ${JSON.stringify(raw)}`);
    return value;
  };
  const result = await runSoakExperiment({
    runs: positive('runs', values.runs),
    inFlight: positive('in-flight', values['in-flight']),
    retentionSeconds: positive('retention-s', values['retention-s']),
    completedJobsKept: positive('completed-jobs-kept', values['completed-jobs-kept']),
    archiveWaitMs: positive('archive-wait-s', values['archive-wait-s']) * 1000,
    timeoutMs: positive('timeout-s', values['timeout-s']) * 1000,
    ...(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : {}),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatSoakTable(result)}\n`);
  return result.boundsHeld ? 0 : 1;
}
