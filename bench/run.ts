// `npm run bench` (issues #10, #17): the fleet's figures on this machine, from one command.
//
// Starts its own private redis-server (or uses REDIS_URL), runs the sections below, prints one
// table and writes bench/results/latest.json and bench/results/latest.svg. Every loop is bounded
// in count and in time; everything listens on loopback. A failing section prints its error in its
// row and the others still run. bench/README.md describes each section and the env vars.
//
//   1. per-turn overhead   fleet turn (turn-start gaps) vs raw BullMQ ping-pong vs in-process loop
//   2. throughput          1+1, 2+2, 4+4 model + tool worker processes (dev fleet), runs via REST;
//                          CPU ms per turn of each role
//   3. concurrency         BENCH_INPROCESS_RUNS runs at 1–3 s model latency, one process; RSS,
//                          loop delay, Redis commands per turn (client and server side)
//   4. parser              calls/s on a realistic mix; worst of 1 MB adversarial inputs
//   5. kill switch         last write start − trip under load (runKillSwitchExperiment)
//   +  bottleneck          which saturates first in section 3, and its top Redis commands
//   6. redis per turn      commands and round trips per turn sent by an in-process fleet (client
//                          side) and run by Redis (commandstats), next to BullMQ's own floor
//   7. concurrent procs    BENCH_CONCURRENT_RUNS runs at 1–3 s latency on ONE model and ONE tool
//                          process; memory per in-flight run, loop delay inside each worker
//   8. history             Redis bytes per finished run before and after it is archived to
//                          PostgreSQL and its keys expire; archive throughput (issue #21)
//   9. shards              1, 2 and 3 queue shards on a local Redis Cluster (3 primaries, 3
//                          replicas), one model and one tool process per shard (issue #20)
//   +  targets             issue #17's "Done when" figures, each marked met / not met
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import { Redis } from 'ioredis';
import { startInProcessFleet } from '../src/dev/in-process-fleet.js';
import { startPrivateRedis, type PrivateRedis } from '../src/dev/private-redis.js';
import { startDevFleet, type DevFleet } from '../src/cli/dev-fleet.js';
import { spawnRole } from '../src/cli/spawn-role.js';
import { compileBuild } from '../test/deploy/support/compiled-build.js';
import { startSimulator } from '../src/sim/simulator-server.js';
import { parseToolCallsFromText, createJsonSchemaValidator, type ParseOptions } from '../src/parsing/index.js';
import { runKillSwitchExperiment } from '../src/cli/experiment-killswitch.js';
import { anthropicToolsFor } from '../src/tools/tool-definitions.js';
import { ALL_TOOLS } from '../src/domain/profile.js';
import { installRedisCommandCounter, countsByCommand, subtractCounts, type RedisCommandCounts } from './count-redis-commands.js';
import { createFleetRestClient } from './fleet-rest-client.js';
import { readRunOutcomes, submitRuns, waitUntilQueuesDrain } from './follow-runs.js';
import { measureBullmqFloor, type BullmqFloor } from './bullmq-floor.js';
import { commandCalls, commandCallsDelta, redisCpuSeconds, redisInfo, topPer, total } from './redis-server-stats.js';
import { cpuByRole, rolesOf } from './role-processes.js';
import { processPeakRssKb } from './process-stats.js';
import { concurrentRunsInProcesses } from './concurrent-runs-in-processes.js';
import { measureHistoryArchive } from './history-archive.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS_DIR = process.env.BENCH_RESULTS_DIR ? resolve(process.env.BENCH_RESULTS_DIR) : join(HERE, 'results');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const QUICK = process.env.BENCH_QUICK === '1';

/** A whole number from the environment, else the default (quick or full). */
function envCount(name: string, full: number, quick: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return QUICK ? quick : full;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number ≥ 1, got "${raw}"`);
  return value;
}

const SIZES = {
  /** Section 3: concurrent runs inside one process (the #10 section). */
  inProcessRuns: envCount('BENCH_INPROCESS_RUNS', 1000, 100),
  /** Section 7: concurrent runs on one model + one tool process. */
  concurrentRuns: envCount('BENCH_CONCURRENT_RUNS', 10_000, 300),
  /** Section 7: seconds from the first submit until figures are taken, finished or not. */
  concurrentWindowSeconds: envCount('BENCH_CONCURRENT_WINDOW_SECONDS', 1500, 120),
  /** 0: the model worker takes every run at once (concurrency = runs). */
  concurrentModelConcurrency: envCount('BENCH_CONCURRENT_MODEL_CONCURRENCY', 0, 0),
  concurrentToolConcurrency: envCount('BENCH_CONCURRENT_TOOL_CONCURRENCY', 1000, 1000),
  concurrentSubmitBatch: envCount('BENCH_SUBMIT_BATCH', 100, 100),
  /** Section 6: runs of the in-process fleet whose commands are counted, 10 at a time. */
  redisRuns: envCount('BENCH_REDIS_RUNS', 40, 10),
  /** Section 6: round trips of each BullMQ floor. */
  floorRoundTrips: envCount('BENCH_FLOOR_ROUND_TRIPS', 300, 60),
  /** Section 2: runs per worker-count configuration. */
  throughputRuns: envCount('BENCH_THROUGHPUT_RUNS', 60, 20),
  /** Section 8: finished runs whose Redis memory is measured, then archived to PostgreSQL. */
  historyRuns: envCount('BENCH_HISTORY_RUNS', 200, 20),
};
/** Section 9's shard counts: BENCH_SHARDS (comma-separated), else 1, 2 and 3. */
const SHARD_COUNTS = (process.env.BENCH_SHARDS ?? (QUICK ? '1,3' : '1,2,3'))
  .split(',')
  .map((value) => Number(value.trim()))
  .filter((value) => Number.isInteger(value) && value >= 1);

const THROUGHPUT_WORKERS = (process.env.BENCH_THROUGHPUT_WORKERS ?? (QUICK ? '1' : '1,2,4'))
  .split(',')
  .map((part) => Number(part.trim()))
  .filter((count) => Number.isInteger(count) && count >= 1 && count <= 16);

interface Row {
  section: string;
  metric: string;
  value: string;
  /** The issue #17 target this figure is held against, with the verdict. */
  target?: string;
}
const rows: Row[] = [];
const results: Record<string, unknown> = {};
const row = (section: string, metric: string, value: string | number, target?: string) => {
  const text = typeof value === 'number' ? fmt(value) : value;
  rows.push({ section, metric, value: text, ...(target ? { target } : {}) });
  process.stderr.write(`  [${section}] ${metric}: ${text}${target ? `   [target ${target}]` : ''}\n`);
};

function fmt(value: number | null | undefined): string {
  if (value === null || value === undefined) return 'n/a';
  if (!Number.isFinite(value) || Number.isInteger(value)) return String(value);
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

// ---- targets (issue #17 "Done when") ----------------------------------------------------------

export interface TargetCheck {
  name: string;
  /** e.g. "≤ 30" */
  target: string;
  value: number | null;
  unit: string;
  /** null: not measured (section skipped or failed) or not at the target's size. */
  met: boolean | null;
  /** Which section and setting produced the value. */
  source: string;
  note?: string;
}
const targets: TargetCheck[] = [];

/** Records a target and returns the text for the row's target column. */
function checkTarget(check: Omit<TargetCheck, 'met'> & { met?: boolean | null; limit: number }): string {
  const { limit, ...rest } = check;
  // Every target of the issue is an upper bound, unless the caller decides `met` itself.
  const met = check.met !== undefined ? check.met : check.value === null || !Number.isFinite(check.value) ? null : check.value <= limit;
  const entry: TargetCheck = { ...rest, met };
  targets.push(entry);
  return `${entry.target}: ${verdict(entry)}`;
}

function verdict(check: TargetCheck): string {
  const base = check.met === null ? 'not measured' : check.met ? 'met' : 'not met';
  return check.note ? `${base} (${check.note})` : base;
}

// The targets issue #17 names, so a skipped or failed section shows "not measured", not nothing.
const TARGET_NAMES = {
  commands: 'Redis commands per turn (client side, EVALSHA = 1)',
  cpu: 'fleet CPU per turn (model + tool + api processes)',
  turnRatio: 'fleet turn median / in-process turn median',
  memory: 'memory per in-flight run (model + tool process)',
  loopDelay: 'event-loop delay p99 (worst worker process)',
  finish: 'concurrent runs that finish on 1 model + 1 tool process',
} as const;

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function section(name: string, capMs: number, body: () => Promise<void>): Promise<void> {
  const only = process.env.BENCH_ONLY;
  if (only && !only.split(',').some((prefix) => name.startsWith(prefix.trim()))) return;
  const started = Date.now();
  process.stderr.write(`== ${name}\n`);
  try {
    await withTimeout(body(), capMs, name);
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    row(name, 'ERROR', message.slice(0, 160));
    results[`${name}_error`] = message;
  }
  process.stderr.write(`   (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
}

function streamIdMs(id: string): number {
  return Number(id.split('-')[0]);
}

// Client-side Redis command counting (count-redis-commands.ts): patches ioredis in this process,
// so it sees the in-process fleets of sections 1, 3 and 6 and the BullMQ floor, never the worker
// processes of sections 2 and 7. The bench's own connections are excluded.
const counter = installRedisCommandCounter();

/** A Redis connection of the bench's own (INFO, CONFIG, the round-trip measure), never counted as the fleet's. */
function benchConnection(redisUrl: string): Redis {
  const redis = new Redis(redisUrl);
  counter.excludeConnection(redis);
  return redis;
}

const FLEET_ENV = {
  BUILDFLEET_RATE_LIMIT_PER_MINUTE: '0',
  BUILDFLEET_MAX_CONCURRENT_RUNS: '0',
  LOG_LEVEL: 'silent',
};

// ---- 1. per-turn orchestration overhead ------------------------------------------------------

async function fleetTurnGaps(redisUrl: string, runs: number): Promise<{ gaps: number[]; runsDone: number }> {
  const fleet = await startInProcessFleet({ redisUrl, env: FLEET_ENV, simulator: { latencyMs: { min: 0, max: 0 } } });
  const rest = createFleetRestClient({ baseUrl: fleet.apiUrl, apiKey: fleet.apiKey });
  const gaps: number[] = [];
  let runsDone = 0;
  try {
    // Warm-up run (JIT, connections), not counted.
    await fleet.waitForRun((await fleet.submit({})).id, 30_000);
    const deadline = Date.now() + 60_000;
    for (let index = 0; index < runs && Date.now() < deadline; index += 1) {
      const run = await fleet.submit({ prompt: `Build a small website for bakery number ${index + 1}.` });
      await fleet.waitForRun(run.id, 30_000);
      runsDone += 1;
      const starts = (await rest.runEvents(run.id)).filter((event) => event.event === 'turn-start');
      for (let at = 1; at < starts.length; at += 1) gaps.push(streamIdMs(starts[at]!.id) - streamIdMs(starts[at - 1]!.id));
    }
  } finally {
    await fleet.close();
  }
  return { gaps, runsDone };
}

async function inProcessLoop(turns: number): Promise<number[]> {
  const simulator = await startSimulator({ latencyMs: { min: 0, max: 0 } });
  const client = new Anthropic({ apiKey: 'bench', baseURL: simulator.url, maxRetries: 0 });
  const tools = anthropicToolsFor(ALL_TOOLS) as unknown as Anthropic.Tool[];
  const samples: number[] = [];
  try {
    let messages: Anthropic.MessageParam[] = [];
    let conversation = 0;
    const deadline = Date.now() + 30_000;
    for (let index = 0; index < turns + 10 && Date.now() < deadline; index += 1) {
      if (messages.length === 0 || messages.length > 26) {
        conversation += 1;
        messages = [{ role: 'user', content: `Build a small website for bakery number ${conversation}.` }];
      }
      const started = performance.now();
      // Streamed, as every call of the fleet is (issue #14): the same turn, in-process.
      const response = await client.messages
        .stream({ model: 'claude-sonnet-4-6', max_tokens: 4096, system: 'You build websites with tools.', messages, tools }, { headers: { 'x-buildfleet-run-id': `bench-${conversation}` } })
        .finalMessage();
      const uses = response.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
      messages.push({ role: 'assistant', content: response.content });
      if (uses.length > 0) {
        // The trivial tool: answered in-process.
        messages.push({ role: 'user', content: uses.map((use) => ({ type: 'tool_result' as const, tool_use_id: use.id, content: 'ok' })) });
      } else {
        messages = [];
      }
      if (index >= 10) samples.push(performance.now() - started);
    }
  } finally {
    await simulator.close();
  }
  return samples;
}

/**
 * What one streamed model call costs the calling process alone: the SDK (request, fetch, SSE
 * parsing, the message accumulated from the events) against a simulator in its own process, the
 * same conversation shape as the in-process loop. No runtime that calls the model through the
 * SDK can spend less per turn; the fleet's own orchestration is its CPU per turn minus this.
 */
async function sdkCallFloor(calls: number): Promise<{ calls: number; cpuMsPerCall: number }> {
  const simulator = spawnRole({ name: 'simulator', args: ['sim', '--port', '0'], env: process.env, cliEntry: compiledCli });
  try {
    const url = (await simulator.waitForLine(/simulator listening on (http:\/\/\S+)/))[1]!;
    const client = new Anthropic({ apiKey: 'bench', baseURL: url, maxRetries: 0 });
    const tools = anthropicToolsFor(ALL_TOOLS.slice(0, 13)) as unknown as Anthropic.Tool[];
    let messages: Anthropic.MessageParam[] = [];
    let conversation = 0;
    let measured = 0;
    let cpuBefore = process.cpuUsage();
    const deadline = Date.now() + 60_000;
    for (let index = 0; index < calls + 50 && Date.now() < deadline; index += 1) {
      // The first 50 calls warm the JIT up and are not counted.
      if (index === 50) cpuBefore = process.cpuUsage();
      if (messages.length === 0 || messages.length > 24) {
        conversation += 1;
        messages = [{ role: 'user', content: `Build a small website for bakery number ${conversation}.` }];
      }
      const response = await client.messages
        .stream({ model: 'claude-sonnet-4-6', max_tokens: 4096, system: 'You build websites with tools.', messages, tools }, { headers: { 'x-buildfleet-run-id': `floor-${conversation}` } })
        .finalMessage();
      if (index >= 50) measured += 1;
      const uses = response.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
      messages.push({ role: 'assistant', content: response.content });
      if (uses.length > 0) messages.push({ role: 'user', content: uses.map((use) => ({ type: 'tool_result' as const, tool_use_id: use.id, content: 'ok' })) });
      else messages = [];
    }
    const cpu = process.cpuUsage(cpuBefore);
    return { calls: measured, cpuMsPerCall: (cpu.user + cpu.system) / 1000 / Math.max(1, measured) };
  } finally {
    await simulator.stop('SIGTERM');
  }
}

/**
 * One measured burst on a dev fleet, as sections 2 and 9 take it: a warm-up (not measured: a fresh
 * process spends its first turns compiling), then `runCount` runs submitted at once, as a burst of
 * clients would, followed until the queues drain; CPU of each role and of Redis around it.
 */
async function measureBurst({ fleet, warmUpRuns, runCount, capMs, redisCpuSeconds: redisCpuNow }: { fleet: DevFleet; warmUpRuns: number; runCount: number; capMs: number; redisCpuSeconds: () => Promise<number> }) {
  const rest = createFleetRestClient({ baseUrl: fleet.apiUrl, apiKey: fleet.apiKey });
  const warmUp = await submitRuns({ rest, count: warmUpRuns, batchSize: warmUpRuns, deadline: Date.now() + 30_000 });
  if (warmUp.failures > 0) throw new Error(`warm-up: POST /v1/runs failed: ${warmUp.firstError}`);
  await waitUntilQueuesDrain({ rest, deadline: Date.now() + 60_000, intervalMs: 200 });
  const redisBefore = await redisCpuNow();
  const cpuBefore = cpuByRole(fleet);
  const started = performance.now();
  const deadline = Date.now() + capMs;
  const submitted = await submitRuns({ rest, count: runCount, batchSize: runCount, deadline });
  if (submitted.failures > 0) throw new Error(`${submitted.failures} POST /v1/runs failed: ${submitted.firstError}`);
  // Queue counts every 200 ms: one cheap API request, whatever the number of runs.
  const followed = await waitUntilQueuesDrain({ rest, deadline, intervalMs: 200, submitted: submitted.ids.length });
  const cpuAfter = cpuByRole(fleet);
  const seconds = (followed.endedAt - started) / 1000;
  const redisCpu = (await redisCpuNow()) - redisBefore;
  const outcomes = await readRunOutcomes({ rest, ids: submitted.ids });
  return { submitted, followed, outcomes, seconds, cpuBefore, cpuAfter, redisCpu };
}

// ---- 2. throughput with N worker processes ----------------------------------------------------

async function throughput(redisUrl: string, workers: number, runCount: number, capMs: number) {
  const fleet = await startDevFleet({
    env: { ...FLEET_ENV, REDIS_URL: redisUrl, BUILDFLEET_AUTH: 'disabled', BUILDFLEET_PREFIX: `bfbench${workers}w${randomBytes(3).toString('hex')}`, LOG_LEVEL: 'info' },
    modelWorkers: workers,
    toolWorkers: workers,
    writeStateFile: false,
    ...(compiledCli ? { cliEntry: compiledCli } : {}),
  });
  const admin = benchConnection(redisUrl);
  try {
    const { submitted, followed, outcomes, seconds, cpuBefore, cpuAfter, redisCpu } = await measureBurst({ fleet, warmUpRuns: 2 * workers, runCount, capMs, redisCpuSeconds: () => redisCpuSeconds(admin) });
    const memory = await redisInfo(admin, 'memory');
    const turns = outcomes.turns;
    const cpuSeconds = (kind: 'model' | 'tool' | 'api' | 'simulator') => cpuAfter[kind] - cpuBefore[kind];
    const msPerTurn = (kind: 'model' | 'tool' | 'api' | 'simulator') => (cpuSeconds(kind) * 1000) / Math.max(1, turns);
    const workerPeaks = [...rolesOf(fleet, 'model'), ...rolesOf(fleet, 'tool')].map((role) => processPeakRssKb(role.child.pid) / 1024);
    return {
      workers,
      modelWorkersCpuPercent: (cpuSeconds('model') / seconds) * 100,
      toolWorkersCpuPercent: (cpuSeconds('tool') / seconds) * 100,
      apiCpuPercent: (cpuSeconds('api') / seconds) * 100,
      simulatorCpuPercent: (cpuSeconds('simulator') / seconds) * 100,
      // CPU of every process of the role, divided by the turns of the runs: /proc/<pid>/stat, 10 ms ticks.
      cpuMsPerTurn: {
        model: msPerTurn('model'),
        tool: msPerTurn('tool'),
        api: msPerTurn('api'),
        simulator: msPerTurn('simulator'),
        fleet: msPerTurn('model') + msPerTurn('tool') + msPerTurn('api'),
      },
      maxWorkerPeakRssMb: Math.max(0, ...workerPeaks),
      runs: submitted.ids.length,
      finished: outcomes.finished,
      succeeded: outcomes.succeeded,
      timedOut: followed.timedOut,
      turns,
      seconds,
      turnsPerSecond: turns / seconds,
      runsPerMinute: (outcomes.finished / seconds) * 60,
      redisCpuSeconds: redisCpu,
      redisCpuPercent: (redisCpu / seconds) * 100,
      redisUsedMemoryMb: Number(memory.used_memory ?? 0) / 1024 / 1024,
      redisUsedMemoryHuman: memory.used_memory_human ?? '',
    };
  } finally {
    admin.disconnect();
    await fleet.stop();
  }
}

// ---- 9. queue shards on a local Redis Cluster ------------------------------------------------

/** Throughput of `shards` queue shards on a local cluster, one model and one tool worker process
 * per shard: what the fleet can spread over a cluster's primaries on this machine's cores. */
async function shardThroughput(shards: number, runCount: number, capMs: number) {
  const fleet = await startDevFleet({
    env: { ...FLEET_ENV, BUILDFLEET_AUTH: 'disabled', BUILDFLEET_PREFIX: `bfshard${shards}${randomBytes(3).toString('hex')}`, LOG_LEVEL: 'info', REDIS_URL: '' },
    redisCluster: true,
    shards,
    modelWorkers: 1,
    toolWorkers: 1,
    writeStateFile: false,
    ...(compiledCli ? { cliEntry: compiledCli } : {}),
  });
  const nodes = (fleet.redisClusterSeeds ?? '').split(',').map((url) => benchConnection(url));
  const clusterCpu = async () => (await Promise.all(nodes.map((node) => redisCpuSeconds(node)))).reduce((sum, seconds) => sum + seconds, 0);
  try {
    const { submitted, followed, outcomes, seconds, cpuBefore, cpuAfter, redisCpu } = await measureBurst({ fleet, warmUpRuns: 2 * shards, runCount, capMs, redisCpuSeconds: clusterCpu });
    const workerCpu = cpuAfter.model - cpuBefore.model + (cpuAfter.tool - cpuBefore.tool);
    return {
      shards,
      runs: submitted.ids.length,
      finished: outcomes.finished,
      succeeded: outcomes.succeeded,
      timedOut: followed.timedOut,
      turns: outcomes.turns,
      seconds,
      turnsPerSecond: outcomes.turns / seconds,
      workerCpuPercent: (workerCpu / seconds) * 100,
      simulatorAndApiCpuPercent: ((cpuAfter.simulator - cpuBefore.simulator + (cpuAfter.api - cpuBefore.api)) / seconds) * 100,
      clusterCpuPercent: (redisCpu / seconds) * 100,
    };
  } finally {
    for (const node of nodes) node.disconnect();
    await fleet.stop();
  }
}

// ---- 3. concurrency at realistic latency, one process -------------------------------------------

/** Per-turn Redis figures: client side (this process's fleet) and server side (commandstats). */
function perTurnRedis({ client, server, turns }: { client: RedisCommandCounts; server: Record<string, number>; turns: number }) {
  const per = Math.max(1, turns);
  return {
    clientCommandsPerTurn: client.commands / per,
    clientRoundTripsPerTurn: client.roundTrips / per,
    clientTopCommandsPerTurn: topPer({ counts: client.byName, per, limit: 10 }),
    serverCommandsPerTurn: total(server) / per,
    serverTopCommandsPerTurn: topPer({ counts: server, per, limit: 10 }),
  };
}

const topText = (entries: Array<{ command: string; perTurn: number }>, limit = 6) =>
  entries
    .slice(0, limit)
    .map((entry) => `${entry.command} ${fmt(entry.perTurn)}`)
    .join(', ');

async function concurrency(redisUrl: string, runCount: number, capMs: number) {
  const admin = benchConnection(redisUrl);
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  const fleet = await startInProcessFleet({
    redisUrl,
    env: { ...FLEET_ENV, BUILDFLEET_MODEL_CONCURRENCY: String(Math.max(1000, runCount)), BUILDFLEET_TOOL_CONCURRENCY: '200' },
    simulator: { latencyMs: { min: 1000, max: 3000 } },
  });
  const rest = createFleetRestClient({ baseUrl: fleet.apiUrl, apiKey: fleet.apiKey });
  try {
    await fleet.waitForRun((await fleet.submit({})).id, 60_000);
    global.gc?.();
    await sleep(200);
    const baselineRss = process.memoryUsage().rss;
    let peakRss = baselineRss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 100);
    const serverBefore = await commandCalls(admin);
    const cpuBefore = await redisCpuSeconds(admin);
    const countsBefore = counter.snapshot();
    loopDelay.enable();
    const cpuUsageBefore = process.cpuUsage();
    const started = performance.now();
    const ids: string[] = [];
    // Submitted in batches of 50 so the submit itself does not starve the loop.
    for (let index = 0; index < runCount; index += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, runCount - index) }, (_, offset) => fleet.submit({ prompt: `Build a small website for bakery number ${index + offset + 1}.` })),
      );
      ids.push(...batch.map((run) => run.id));
    }
    const submitSeconds = (performance.now() - started) / 1000;
    // The queue counts once a second through the fleet's own API (a few commands per poll, counted
    // as the fleet's: well under 0.1 per turn).
    const followed = await waitUntilQueuesDrain({ rest, deadline: Date.now() + capMs, intervalMs: 1000, submitted: ids.length });
    const seconds = (followed.endedAt - started) / 1000;
    const cpuUsage = process.cpuUsage(cpuUsageBefore);
    loopDelay.disable();
    clearInterval(sampler);
    const countsAfter = counter.snapshot();
    const cpu = (await redisCpuSeconds(admin)) - cpuBefore;
    const own = countsByCommand(subtractCounts({ after: countsAfter.excluded, before: countsBefore.excluded }));
    // The INFO that took `serverBefore` is itself in the second reading (the rest of the bench's
    // INFO calls come after `countsBefore` and are in `own`).
    const server = commandCallsDelta({ after: await commandCalls(admin), before: serverBefore, own: { ...own, info: (own.info ?? 0) + 1 } });
    const client = subtractCounts({ after: countsAfter.counted, before: countsBefore.counted });
    const outcomes = await readRunOutcomes({ rest, ids });
    const turns = outcomes.turns;
    const redis = perTurnRedis({ client, server, turns });
    return {
      runs: ids.length,
      finished: outcomes.finished,
      succeeded: outcomes.succeeded,
      timedOut: followed.timedOut,
      peakInFlight: followed.peakInFlight,
      turns,
      seconds,
      submitSeconds,
      turnsPerSecond: turns / seconds,
      baselineRssMb: baselineRss / 1024 / 1024,
      peakRssMb: peakRss / 1024 / 1024,
      kbPerInFlightRun: (peakRss - baselineRss) / 1024 / ids.length,
      loopDelayP50Ms: loopDelay.percentile(50) / 1e6,
      loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
      loopDelayMaxMs: loopDelay.max / 1e6,
      redisCpuSeconds: cpu,
      redisCpuPercent: (cpu / seconds) * 100,
      fleetProcessCpuPercent: ((cpuUsage.user + cpuUsage.system) / 1e6 / seconds) * 100,
      // Server side, as issue #10 measured it (kept under its old names for before/after tables).
      redisCommandsPerTurn: redis.serverCommandsPerTurn,
      topCommandsPerTurn: redis.serverTopCommandsPerTurn,
      ...redis,
    };
  } finally {
    admin.disconnect();
    await fleet.close();
  }
}

// ---- 6. Redis commands and round trips per turn ---------------------------------------------------

/** Runs `runCount` runs through an in-process fleet (zero-latency model), `parallel` at a time,
 * counting what the fleet sends; the bench's waiting for runs is excluded. */
async function fleetRedisPerTurn(redisUrl: string, runCount: number, parallel: number) {
  const admin = benchConnection(redisUrl);
  const fleet = await startInProcessFleet({ redisUrl, env: FLEET_ENV, simulator: { latencyMs: { min: 0, max: 0 } } });
  const rest = createFleetRestClient({ baseUrl: fleet.apiUrl, apiKey: fleet.apiKey });
  try {
    // Warm-up (scripts loaded, connections up), not counted.
    await fleet.waitForRun((await fleet.submit({})).id, 30_000);
    await sleep(200);
    const serverBefore = await commandCalls(admin);
    const countsBefore = counter.snapshot();
    const started = performance.now();
    const ids: string[] = [];
    let next = 0;
    const deadline = Date.now() + 120_000;
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next < runCount && Date.now() < deadline) {
          next += 1;
          const number = next;
          const run = await fleet.submit({ prompt: `Build a small website for bakery number ${number}.` });
          ids.push(run.id);
          // waitForRun polls the run through the fleet's connection: the bench's, not the fleet's.
          await counter.uncounted(() => fleet.waitForRun(run.id, 60_000));
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const countsAfter = counter.snapshot();
    const own = countsByCommand(subtractCounts({ after: countsAfter.excluded, before: countsBefore.excluded }));
    const server = commandCallsDelta({ after: await commandCalls(admin), before: serverBefore, own: { ...own, info: (own.info ?? 0) + 1 } });
    const client = subtractCounts({ after: countsAfter.counted, before: countsBefore.counted });
    const outcomes = await readRunOutcomes({ rest, ids });
    return {
      runs: ids.length,
      parallel: Math.min(parallel, runCount),
      finished: outcomes.finished,
      turns: outcomes.turns,
      seconds,
      // Subtracting the bench's own polling from commandstats is exact while those are plain
      // commands; a polled script would leave its inner commands in (flagged here).
      serverSubtractionExact: !Object.keys(own).some((command) => command.startsWith('eval')),
      ...perTurnRedis({ client, server, turns: outcomes.turns }),
    };
  } finally {
    admin.disconnect();
    await fleet.close();
  }
}

function floorFigures(floor: BullmqFloor) {
  const per = Math.max(1, floor.roundTrips);
  return {
    roundTrips: floor.roundTrips,
    medianMs: quantile(floor.samplesMs, 0.5),
    p99Ms: quantile(floor.samplesMs, 0.99),
    cpuMsPerRoundTrip: floor.cpuMs / per,
    clientCommandsPerRoundTrip: floor.client.commands / per,
    clientRoundTripsPerRoundTrip: floor.client.roundTrips / per,
    clientTopCommands: topPer({ counts: floor.client.byName, per, limit: 8 }),
    serverCommandsPerRoundTrip: total(floor.server) / per,
    serverTopCommands: topPer({ counts: floor.server, per, limit: 8 }),
  };
}
/**
 * One Redis round trip as the fleet makes them: a one-command script (EVALSHA) awaited before the
 * next, on a connection of its own, nothing else running in this process. Its median is the least
 * a sequential step adds to a turn's time; its CPU is what the client side (ioredis, the socket
 * write and read) costs this process per round trip, whatever the script does.
 */
async function redisRoundTrip(redisUrl: string, roundTrips: number): Promise<{ roundTrips: number; medianMs: number; clientCpuMsPerRoundTrip: number }> {
  const redis = benchConnection(redisUrl);
  try {
    const scripted = redis as Redis & { bfBenchRoundTrip(key: string): Promise<unknown> };
    redis.defineCommand('bfBenchRoundTrip', { numberOfKeys: 1, lua: "return redis.call('HGET', KEYS[1], 'field')" });
    for (let index = 0; index < 200; index += 1) await scripted.bfBenchRoundTrip('bench:round-trip');
    const samples: number[] = [];
    const cpuBefore = process.cpuUsage();
    for (let index = 0; index < roundTrips; index += 1) {
      const started = performance.now();
      await scripted.bfBenchRoundTrip('bench:round-trip');
      samples.push(performance.now() - started);
    }
    // Includes the command counter's patch of sendCommand (a few map updates per command).
    const cpu = process.cpuUsage(cpuBefore);
    return { roundTrips, medianMs: quantile(samples, 0.5), clientCpuMsPerRoundTrip: (cpu.user + cpu.system) / 1000 / roundTrips };
  } finally {
    redis.disconnect();
  }
}

// ---- 4. parser -------------------------------------------------------------------------------

function parserFigures() {
  const schemaTools = [
    { name: 'write_file', input_schema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] } },
    { name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false } },
  ];
  const options: ParseOptions = { allowedTools: ['write_file', 'get_weather'], validate: createJsonSchemaValidator(schemaTools), toolIntent: true };
  const twoKb = JSON.stringify({ name: 'write_file', arguments: { path: 'index.html', content: '<p>' + 'x'.repeat(1900) + '</p>' } });
  const mix = [
    'I will write the page now.\n<tool_call>{"name": "write_file", "arguments": {"path": "index.html", "content": "<h1>Hi</h1>"}}</tool_call>',
    'Here is the call:\n```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```',
    '[get_weather(city="Berlin")]',
    'The site is ready. I built three pages with a menu and a contact form; nothing else is needed.',
    twoKb,
  ];
  for (let index = 0; index < 2000; index += 1) parseToolCallsFromText(mix[index % mix.length]!, options);
  let calls = 0;
  let parsed = 0;
  const started = performance.now();
  while (performance.now() - started < 2000 && calls < 2_000_000) {
    for (const text of mix) parsed += parseToolCallsFromText(text, options).calls.length;
    calls += mix.length;
  }
  const callsPerSecond = calls / ((performance.now() - started) / 1000);
  const MB = 1024 * 1024;
  const fill = (unit: string, prefix = '', suffix = '') => prefix + unit.repeat(Math.ceil((MB - prefix.length - suffix.length) / unit.length)) + suffix;
  const shapes: Array<[string, string]> = [
    ['<tool name=" repeated', fill('<tool name="')],
    ['<tool_call>{ never closed', fill('<tool_call>{')],
    ['complete tags repeated', fill('<tool_call>{}</tool_call>')],
    ['{{{{', fill('{')],
    ['{"name": repeated', fill('{"name":')],
    ['unbalanced quotes', fill('"')],
    ['[[[[ closed', fill('[', '', ']')],
    ['bracket call, nested', fill('[', '[get_weather(city=', ')]')],
    ['```json broken blocks', fill('```json\n{"tool": "x", \n```\n')],
    ['backslashes in a string', fill('\\', '<tool_call>{"a":"', '')],
  ];
  let worst = { shape: '', ms: 0 };
  const perShape: Record<string, number> = {};
  for (const [label, text] of shapes) {
    parseToolCallsFromText(text.slice(0, 64 * 1024), options);
    const t0 = performance.now();
    parseToolCallsFromText(text, options);
    const ms = performance.now() - t0;
    perShape[label] = ms;
    if (ms > worst.ms) worst = { shape: label, ms };
  }
  return { callsPerSecond, mixParsedCalls: parsed, worstAdversarialMs: worst.ms, worstShape: worst.shape, perShapeMs: perShape };
}

// ---- SVG -------------------------------------------------------------------------------------

function barChart(title: string, bars: Array<{ label: string; value: number; unit: string }>, x: number, y: number, width: number): string {
  const max = Math.max(1e-9, ...bars.map((bar) => (Number.isFinite(bar.value) ? bar.value : 0)));
  const barHeight = 22;
  const labelWidth = 170;
  const esc = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  let out = `<text x="${x}" y="${y}" font-weight="bold">${esc(title)}</text>`;
  bars.forEach((bar, index) => {
    const top = y + 12 + index * (barHeight + 6);
    const value = Number.isFinite(bar.value) ? bar.value : 0;
    const length = ((width - labelWidth - 90) * value) / max;
    out += `<text x="${x}" y="${top + 15}">${esc(bar.label)}</text>`;
    out += `<rect x="${x + labelWidth}" y="${top}" width="${length.toFixed(1)}" height="${barHeight}" fill="#4a7bd0"/>`;
    out += `<text x="${(x + labelWidth + length + 6).toFixed(1)}" y="${top + 15}">${esc(fmt(value))} ${esc(bar.unit)}</text>`;
  });
  return out;
}

function writeSvg(path: string): void {
  const turn = results.turn as { fleetMedianMs?: number; bullmqMedianMs?: number; inProcessMedianMs?: number; fleetP99Ms?: number } | undefined;
  const tput = (results.throughput as Array<{ workers: number; turnsPerSecond: number }> | undefined) ?? [];
  const width = 720;
  const latencyBars = turn
    ? [
        { label: 'fleet turn (median)', value: turn.fleetMedianMs ?? Number.NaN, unit: 'ms' },
        { label: 'fleet turn (p99)', value: turn.fleetP99Ms ?? Number.NaN, unit: 'ms' },
        { label: 'raw BullMQ round trip', value: turn.bullmqMedianMs ?? Number.NaN, unit: 'ms' },
        { label: 'in-process loop', value: turn.inProcessMedianMs ?? Number.NaN, unit: 'ms' },
      ]
    : [];
  const throughputBars = tput.map((entry) => ({ label: `${entry.workers}+${entry.workers} workers`, value: entry.turnsPerSecond, unit: 'turns/s' }));
  const height = 60 + (latencyBars.length + throughputBars.length) * 28 + 80;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="13">` +
    `<rect width="100%" height="100%" fill="white"/>` +
    barChart('Per-turn latency, zero-latency model', latencyBars, 20, 30, width) +
    barChart('Throughput by worker processes (model+tool)', throughputBars, 20, 60 + latencyBars.length * 28 + 30, width) +
    `</svg>\n`;
  writeFileSync(path, svg);
}

// ---- main ------------------------------------------------------------------------------------

/** The roles of the multi-process sections run from a compiled build, as the image runs them
 * (`node dist/src/cli.js`): through tsx a process also pays for source maps and loader hooks,
 * which is not what a turn costs in production. BENCH_TSX=1 measures the tsx way instead. */
let compiledCli: string | undefined;

async function main(): Promise<void> {
  const wallStarted = Date.now();
  let privateRedis: PrivateRedis | null = null;
  const dataDir = mkdtempSync(join(tmpdir(), 'buildfleet-bench-'));
  const redisUrl = process.env.REDIS_URL ?? (privateRedis = await startPrivateRedis({ dataDir })).url;
  results.startedAt = new Date(wallStarted).toISOString();
  results.machine = { cpus: (await import('node:os')).cpus().length, node: process.version };
  results.redis = process.env.REDIS_URL ? 'REDIS_URL' : 'private redis-server (AOF everysec)';
  results.sizes = { quick: QUICK, ...SIZES, throughputWorkers: THROUGHPUT_WORKERS };
  const compiledBuild = process.env.BENCH_TSX === '1' ? null : compileBuild();
  compiledCli = compiledBuild?.cli;
  results.roleEntry = compiledCli ? 'compiled build (node dist/src/cli.js), as the image runs' : 'sources through tsx (BENCH_TSX=1)';
  try {
    await section('1 turn overhead', 150_000, async () => {
      const fleetRuns = QUICK ? 5 : 30;
      const { gaps, runsDone } = await fleetTurnGaps(redisUrl, fleetRuns);
      const bull = (await measureBullmqFloor({ redisUrl, mode: 'ping-pong', roundTrips: QUICK ? 110 : 510, counter })).samplesMs;
      const loop = await inProcessLoop(QUICK ? 100 : 300);
      const turn = {
        fleetRuns: runsDone,
        fleetTurns: gaps.length,
        fleetMedianMs: quantile(gaps, 0.5),
        fleetP99Ms: quantile(gaps, 0.99),
        bullmqRoundTrips: bull.length,
        bullmqMedianMs: quantile(bull, 0.5),
        bullmqP99Ms: quantile(bull, 0.99),
        inProcessTurns: loop.length,
        inProcessMedianMs: quantile(loop, 0.5),
        inProcessP99Ms: quantile(loop, 0.99),
      };
      results.turn = turn;
      row('1 turn overhead', `fleet turn median / p99 (${gaps.length} turns, ${runsDone} runs, conc. 1)`, `${fmt(turn.fleetMedianMs)} / ${fmt(turn.fleetP99Ms)} ms`);
      row('1 turn overhead', `raw BullMQ A→B→A round trip median / p99 (${bull.length})`, `${fmt(turn.bullmqMedianMs)} / ${fmt(turn.bullmqP99Ms)} ms`);
      row('1 turn overhead', `in-process loop (streamed SDK call→sim + tool) median / p99 (${loop.length})`, `${fmt(turn.inProcessMedianMs)} / ${fmt(turn.inProcessP99Ms)} ms`);
      const floor = await sdkCallFloor(QUICK ? 100 : 300);
      results.sdkCallFloor = floor;
      row('1 turn overhead', `one streamed SDK call, CPU of the calling process only (${floor.calls} calls, simulator in its own process)`, `${fmt(floor.cpuMsPerCall)} ms`);
      row('1 turn overhead', 'ratio fleet / raw BullMQ (median)', `${fmt(turn.fleetMedianMs / turn.bullmqMedianMs)}x`);
      const ratio = turn.fleetMedianMs / turn.inProcessMedianMs;
      row(
        '1 turn overhead',
        'ratio fleet / in-process (median)',
        `${fmt(ratio)}x`,
        checkTarget({ name: TARGET_NAMES.turnRatio, target: '≤ 2x', limit: 2, value: Number.isFinite(ratio) ? ratio : null, unit: 'x', source: '1 turn overhead, conc. 1' }),
      );
    });

    await section('2 throughput', 300_000, async () => {
      const list: Array<Awaited<ReturnType<typeof throughput>>> = [];
      results.throughput = list;
      for (const workers of THROUGHPUT_WORKERS) {
        try {
          const figures = await throughput(redisUrl, workers, SIZES.throughputRuns, 70_000);
          list.push(figures);
          row(
            '2 throughput',
            `${workers} model + ${workers} tool procs: ${figures.finished}/${figures.runs} runs, ${figures.turns} turns in ${fmt(figures.seconds)} s${figures.timedOut ? ' (cap hit)' : ''}`,
            `${fmt(figures.turnsPerSecond)} turns/s, ${fmt(figures.runsPerMinute)} runs/min`,
          );
          row('2 throughput', `${workers}+${workers} procs: Redis CPU / memory at end`, `${fmt(figures.redisCpuPercent)} % of a core, ${figures.redisUsedMemoryHuman}`);
          row(
            '2 throughput',
            `${workers}+${workers} procs: CPU % of a core (model / tool / api / sim); peak worker RSS`,
            `${fmt(figures.modelWorkersCpuPercent)} / ${fmt(figures.toolWorkersCpuPercent)} / ${fmt(figures.apiCpuPercent)} / ${fmt(figures.simulatorCpuPercent)}; ${fmt(figures.maxWorkerPeakRssMb)} MB`,
          );
          const cpu = figures.cpuMsPerTurn;
          row(
            '2 throughput',
            `${workers}+${workers} procs: CPU ms per turn model / tool / api = fleet (sim, excluded)`,
            `${fmt(cpu.model)} / ${fmt(cpu.tool)} / ${fmt(cpu.api)} = ${fmt(cpu.fleet)} ms (${fmt(cpu.simulator)})`,
            checkTarget({ name: TARGET_NAMES.cpu, target: '≤ 1.5 ms', limit: 1.5, value: figures.turns > 0 ? cpu.fleet : null, unit: 'ms', source: `2 throughput, ${workers}+${workers} procs` }),
          );
          const floor = (results.sdkCallFloor as { cpuMsPerCall?: number } | undefined)?.cpuMsPerCall;
          if (floor !== undefined) {
            row('2 throughput', `${workers}+${workers} procs: fleet CPU per turn beyond its one SDK call (${fmt(floor)} ms, section 1)`, `${fmt(cpu.fleet - floor)} ms`);
          }
        } catch (error) {
          row('2 throughput', `${workers}+${workers} procs: ERROR`, (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 160));
        }
      }
    });

    await section('3 concurrency', 290_000, async () => {
      const runCount = SIZES.inProcessRuns;
      const figures = await concurrency(redisUrl, runCount, 240_000);
      results.concurrency = figures;
      row('3 concurrency', `${runCount} runs at 1–3 s model latency, 1 process: finished (succeeded)`, `${figures.finished}/${figures.runs} (${figures.succeeded}) in ${fmt(figures.seconds)} s${figures.timedOut ? ' (cap hit)' : ''}`);
      row('3 concurrency', 'turns / turns per s', `${figures.turns} / ${fmt(figures.turnsPerSecond)}`);
      row('3 concurrency', 'RSS baseline → peak; per submitted run', `${fmt(figures.baselineRssMb)} → ${fmt(figures.peakRssMb)} MB; ${fmt(figures.kbPerInFlightRun)} KB`);
      row('3 concurrency', 'event loop delay p50 / p99 / max', `${fmt(figures.loopDelayP50Ms)} / ${fmt(figures.loopDelayP99Ms)} / ${fmt(figures.loopDelayMaxMs)} ms`);
      row('3 concurrency', 'Redis CPU; server-side commands per turn (commandstats, Lua inner commands included)', `${fmt(figures.redisCpuPercent)} % of a core; ${fmt(figures.serverCommandsPerTurn)}`);
      row(
        '3 concurrency',
        'client-side commands / round trips per turn (sent by the fleet; EVALSHA = 1)',
        `${fmt(figures.clientCommandsPerTurn)} / ${fmt(figures.clientRoundTripsPerTurn)}`,
        checkTarget({ name: TARGET_NAMES.commands, target: '≤ 30', limit: 30, value: figures.turns > 0 ? figures.clientCommandsPerTurn : null, unit: 'commands', source: `3 concurrency, ${runCount} runs in one process` }),
      );
      row('3 concurrency', 'fleet process CPU (workers + API + simulator, one event loop)', `${fmt(figures.fleetProcessCpuPercent)} % of a core`);
      const verdict =
        figures.fleetProcessCpuPercent > 80 && figures.redisCpuPercent < 50
          ? `Node CPU of the fleet process (${fmt(figures.fleetProcessCpuPercent)} % of a core, loop delay p99 ${fmt(figures.loopDelayP99Ms)} ms) saturates before Redis (${fmt(figures.redisCpuPercent)} %)`
          : figures.redisCpuPercent >= 50
            ? `Redis CPU (${fmt(figures.redisCpuPercent)} % of a core) at ${fmt(figures.serverCommandsPerTurn)} server-side commands per turn`
            : `neither saturated: fleet process ${fmt(figures.fleetProcessCpuPercent)} %, Redis ${fmt(figures.redisCpuPercent)} % of a core`;
      results.bottleneck = verdict;
      row('bottleneck', 'first bottleneck (section 3)', verdict);
      row('bottleneck', 'top Redis commands per turn, server side', topText(figures.serverTopCommandsPerTurn));
      row('bottleneck', 'top Redis commands per turn, client side', topText(figures.clientTopCommandsPerTurn));
    });

    await section('4 parser', 60_000, async () => {
      const figures = parserFigures();
      results.parser = figures;
      row('4 parser', 'realistic mix (tag, fenced, bracket, prose, 2 KB JSON)', `${fmt(figures.callsPerSecond)} calls/s`);
      row('4 parser', `worst 1 MB adversarial input (${Object.keys(figures.perShapeMs).length} shapes)`, `${fmt(figures.worstAdversarialMs)} ms (${figures.worstShape})`);
    });

    await section('5 kill switch', 120_000, async () => {
      const report = await runKillSwitchExperiment({ redisUrl, runs: 20, flipAfterMs: 1500, loadRunsPerSecond: 20, tripTimeoutMs: 20_000 });
      results.killSwitch = report;
      row('5 kill switch', `tripped / ms from upstream flip to trip`, `${report.tripped} / ${report.msFromFlipToTrip ?? 'n/a'} ms`);
      row('5 kill switch', 'last write start − trip (negative = before the trip)', `${report.lastWriteStartMsAfterTrip ?? 'n/a'} ms`);
      row('5 kill switch', 'writes started / landed after the trip; violations', `${report.writesStartedAfterTrip} / ${report.writesLandedAfterTrip}; ${report.violations.length === 0 ? 'none' : report.violations.join('; ')}`);
    });

    await section('6 redis per turn', 240_000, async () => {
      const parallel = 10;
      const fleet = await fleetRedisPerTurn(redisUrl, SIZES.redisRuns, parallel);
      const pingPong = floorFigures(await measureBullmqFloor({ redisUrl, mode: 'ping-pong', roundTrips: SIZES.floorRoundTrips, counter }));
      const flow = floorFigures(await measureBullmqFloor({ redisUrl, mode: 'flow', roundTrips: SIZES.floorRoundTrips, counter }));
      const roundTrip = await redisRoundTrip(redisUrl, QUICK ? 500 : 3000);
      results.redisPerTurn = { fleet, bullmqPingPong: pingPong, bullmqFlow: flow, roundTrip };
      const where = `${fleet.runs} runs, ${fleet.parallel} at a time, ${fleet.turns} turns, zero-latency model`;
      row(
        '6 redis per turn',
        `fleet, client side (sent by this process; EVALSHA = 1): commands / round trips per turn (${where})`,
        `${fmt(fleet.clientCommandsPerTurn)} / ${fmt(fleet.clientRoundTripsPerTurn)}`,
        checkTarget({ name: TARGET_NAMES.commands, target: '≤ 30', limit: 30, value: fleet.turns > 0 ? fleet.clientCommandsPerTurn : null, unit: 'commands', source: `6 redis per turn, ${parallel} runs at a time` }),
      );
      row('6 redis per turn', 'fleet, client side: top commands per turn', topText(fleet.clientTopCommandsPerTurn, 8));
      row(
        '6 redis per turn',
        `fleet, server side (commandstats: EVALSHA + every command inside Lua, BullMQ's included): commands per turn${fleet.serverSubtractionExact ? '' : ' (approx.)'}`,
        fmt(fleet.serverCommandsPerTurn),
      );
      row('6 redis per turn', 'fleet, server side: top commands per turn', topText(fleet.serverTopCommandsPerTurn, 8));
      for (const [label, floor] of [
        ['BullMQ ping-pong floor (job A → job B, conc. 1)', pingPong],
        ['BullMQ flow floor (parent in A + 1 child in B, conc. 1)', flow],
      ] as const) {
        row(
          '6 redis per turn',
          `${label}: per round trip client commands / round trips; server commands`,
          `${fmt(floor.clientCommandsPerRoundTrip)} / ${fmt(floor.clientRoundTripsPerRoundTrip)}; ${fmt(floor.serverCommandsPerRoundTrip)}`,
        );
        row('6 redis per turn', `${label}: median / p99 (${floor.roundTrips} round trips)`, `${fmt(floor.medianMs)} / ${fmt(floor.p99Ms)} ms`);
        row('6 redis per turn', `${label}: CPU per round trip (both workers and producer, one process)`, `${fmt(floor.cpuMsPerRoundTrip)} ms`);
      }
      row('6 redis per turn', 'BullMQ flow floor: top client-side commands per round trip', topText(flow.clientTopCommands, 8));
      row('6 redis per turn', `one Redis round trip, sequential (EVALSHA of a one-command script, ${roundTrip.roundTrips}): median / client CPU`, `${fmt(roundTrip.medianMs)} / ${fmt(roundTrip.clientCpuMsPerRoundTrip)} ms`);
      // An estimate, not a floor: the count is the fleet's own choice (every round trip of the
      // in-process fleet, blocking waits and lock renewals included), so a better design lowers it.
      row('6 redis per turn', "estimate: client CPU of the fleet's round trips per turn at that price", `${fmt(fleet.clientRoundTripsPerTurn * roundTrip.clientCpuMsPerRoundTrip)} ms`);
    });

    const windowMs = SIZES.concurrentWindowSeconds * 1000;
    await section('7 concurrent procs', windowMs + 240_000, async () => {
      const runCount = SIZES.concurrentRuns;
      const figures = await concurrentRunsInProcesses({
        cliEntry: compiledCli,
        redisUrl,
        runCount,
        toolConcurrency: SIZES.concurrentToolConcurrency,
        ...(SIZES.concurrentModelConcurrency > 0 ? { modelConcurrency: SIZES.concurrentModelConcurrency } : {}),
        windowMs,
        submitBatchSize: SIZES.concurrentSubmitBatch,
        env: FLEET_ENV,
        log: (line) => process.stderr.write(`${line}\n`),
      });
      results.concurrentProcesses = figures;
      const name = '7 concurrent procs';
      const atSize = runCount >= 10_000;
      const allFinished = figures.finished === runCount;
      row(
        name,
        `${runCount} runs at 1–3 s model latency, 1 model + 1 tool process: finished (succeeded) / requested`,
        `${figures.finished} (${figures.succeeded}) / ${runCount} in ${fmt(figures.seconds)} s${figures.capHit ? `, cap ${SIZES.concurrentWindowSeconds} s hit: partial figures` : ''}${figures.submitFailures > 0 ? `; ${figures.submitFailures} submits failed: ${figures.firstSubmitError?.slice(0, 80)}` : ''}`,
        checkTarget({
          name: TARGET_NAMES.finish,
          target: '= 10,000',
          limit: 0,
          value: figures.finished,
          unit: 'runs',
          met: allFinished ? (atSize ? true : null) : false,
          source: `7 concurrent procs, ${runCount} runs`,
          ...(allFinished && !atSize ? { note: `all ${runCount} finished; the target is 10,000` } : {}),
        }),
      );
      row(name, 'submit time; turns; turns per s; most runs in flight at once (model-queue jobs, ≤ submitted)', `${fmt(figures.submitSeconds)} s; ${figures.turns}; ${fmt(figures.turnsPerSecond)}; ${figures.peakInFlight}`);
      for (const kind of ['model', 'tool'] as const) {
        const worker = figures[kind];
        row(
          name,
          `${kind} process: RSS baseline → peak${worker.peakFromHwm ? ' (VmHWM)' : ' (sampled)'}; per in-flight run`,
          `${fmt(worker.baselineRssMb)} → ${fmt(worker.peakRssMb)} MB; ${fmt(worker.kbPerInFlightRun)} KB`,
        );
        const lag = worker.loopDelay;
        row(
          name,
          `${kind} process: event-loop delay p50 / worst p99 / max (${lag.scrapes} scrapes of /metrics); slowest scrape`,
          lag.metricsUrl
            ? `${fmt(lag.p50Ms)} / ${fmt(lag.worstP99Ms)} / ${fmt(lag.maxMs)} ms; ${fmt(lag.worstScrapeMs)} ms`
            : 'n/a: the worker printed no "health and metrics on <url>" line',
        );
        if (lag.concurrencyMedian !== null) {
          row(name, `${kind} process: governed concurrency median / highest (buildfleet_worker_concurrency)`, `${fmt(lag.concurrencyMedian)} / ${fmt(lag.concurrencyMax)}`);
        }
      }
      row(
        name,
        'model + tool: KB per in-flight run',
        `${fmt(figures.kbPerInFlightRunTotal)} KB`,
        checkTarget({
          name: TARGET_NAMES.memory,
          target: '≤ 64 KB',
          limit: 64,
          value: figures.peakInFlight > 0 ? figures.kbPerInFlightRunTotal : null,
          unit: 'KB',
          source: `7 concurrent procs, ${figures.peakInFlight} in flight`,
        }),
      );
      for (const kind of ['model', 'tool'] as const) {
        const window = figures[kind].loopDelay.window;
        row(
          name,
          `${kind} process: event-loop delay over the whole window p99; share of samples > 50 ms (buildfleet_event_loop_delay_seconds)`,
          window ? `${fmt(window.p99Ms)} ms; ${fmt((window.shareOver50Ms ?? 0) * 100)} % of ${window.samples}` : 'n/a: the worker exports no buildfleet_event_loop_delay_seconds',
        );
      }
      row(name, 'worst 2 s window: the highest per-scrape p99 of the two workers (includes the 10 ms sampling interval)', `${fmt(figures.worstLoopDelayP99Ms)} ms`);
      row(
        name,
        'event-loop delay p99 over the whole window, the worse of the two worker processes',
        `${fmt(figures.windowLoopDelayP99Ms)} ms`,
        checkTarget({ name: TARGET_NAMES.loopDelay, target: '≤ 50 ms', limit: 50, value: figures.windowLoopDelayP99Ms, unit: 'ms', source: `7 concurrent procs, ${runCount} runs` }),
      );
      const cpu = figures.cpuMsPerTurn;
      row(name, 'CPU ms per turn model / tool / api = fleet (sim, excluded)', `${fmt(cpu.model)} / ${fmt(cpu.tool)} / ${fmt(cpu.api)} = ${fmt(cpu.fleet)} ms (${fmt(cpu.simulator)})`);
    });

    await section('8 history', 600_000, async () => {
      const admin = benchConnection(redisUrl);
      try {
        const figures = await measureHistoryArchive({ redisUrl, admin, runs: SIZES.historyRuns, concurrency: 20, archiveConcurrency: 4, env: FLEET_ENV });
        results.history = figures;
        const name = '8 history';
        row(name, `Redis used_memory per finished run, keys kept (as before #21); ${figures.runs} runs, ${figures.succeeded} succeeded`, `${fmt(figures.bytesPerRunBefore / 1024)} KB`);
        row(name, 'Redis used_memory per finished run once archived and its retention passed', `${fmt(figures.bytesPerRunAfter / 1024)} KB${figures.notExpired > 0 ? ` (${figures.notExpired} runs not yet expired)` : ''}`);
        row(name, `archive throughput (archiveFinishedRun, ${figures.archiveConcurrency} at a time, private PostgreSQL)`, `${fmt(figures.archivedPerSecond)} runs/s (${figures.runs} in ${fmt(figures.archiveSeconds)} s; ${Object.entries(figures.outcomes).map(([outcome, count]) => `${outcome} ${count}`).join(', ')})`);
      } finally {
        admin.disconnect();
      }
    });
    await section('9 shards', 480_000, async () => {
      const list: Array<Awaited<ReturnType<typeof shardThroughput>>> = [];
      results.shards = list;
      for (const shards of SHARD_COUNTS) {
        try {
          const figures = await shardThroughput(shards, SIZES.throughputRuns, 90_000);
          list.push(figures);
          row(
            '9 shards',
            `${shards} shard${shards > 1 ? 's' : ''} on a 3+3 Redis Cluster, 1 model + 1 tool proc each: ${figures.succeeded}/${figures.runs} runs, ${figures.turns} turns in ${fmt(figures.seconds)} s${figures.timedOut ? ' (cap hit)' : ''}`,
            `${fmt(figures.turnsPerSecond)} turns/s`,
          );
          row('9 shards', `${shards} shard${shards > 1 ? 's' : ''}: CPU % of a core, workers / API + simulator / all cluster nodes`, `${fmt(figures.workerCpuPercent)} / ${fmt(figures.simulatorAndApiCpuPercent)} / ${fmt(figures.clusterCpuPercent)}`);
        } catch (error) {
          row('9 shards', `${shards} shards: ERROR`, (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 160));
        }
      }
    });
  } finally {
    await privateRedis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    compiledBuild?.remove();
  }

  // Every target of issue #17, measured or not, in one block at the end of the table.
  for (const name of Object.values(TARGET_NAMES)) {
    if (!targets.some((check) => check.name === name)) targets.push({ name, target: '', value: null, unit: '', met: null, source: 'section not run' });
  }
  for (const check of targets) {
    row('targets', `${check.name}${check.target ? ` ${check.target}` : ''}`, check.value === null ? 'n/a' : `${fmt(check.value)} ${check.unit} (${check.source})`, verdict(check));
  }
  // What the two timing targets leave for the fleet's own work: the least any queue-backed
  // runtime that calls the model through the SDK spends per turn, measured here with no fleet code
  // at all — one streamed SDK call (section 1) plus one BullMQ flow round trip, a parent job and
  // its child in two queues (section 6). A target below its floor cannot be met by the fleet's
  // code; the fleet's own share is what the measured figure adds to the floor.
  const sdkFloorMs = (results.sdkCallFloor as { cpuMsPerCall?: number } | undefined)?.cpuMsPerCall;
  const flowFloor = (results.redisPerTurn as { bullmqFlow?: { cpuMsPerRoundTrip?: number; medianMs?: number } } | undefined)?.bullmqFlow;
  if (sdkFloorMs !== undefined && flowFloor?.cpuMsPerRoundTrip !== undefined) {
    row('targets', 'floor of fleet CPU per turn: one streamed SDK call + one BullMQ flow round trip, no fleet code (sections 1, 6)', `${fmt(sdkFloorMs + flowFloor.cpuMsPerRoundTrip)} ms (${fmt(sdkFloorMs)} + ${fmt(flowFloor.cpuMsPerRoundTrip)})`);
  }
  const turnFigures = results.turn as { inProcessMedianMs?: number } | undefined;
  if (turnFigures?.inProcessMedianMs !== undefined && flowFloor?.medianMs !== undefined) {
    const floorRatio = (turnFigures.inProcessMedianMs + flowFloor.medianMs) / turnFigures.inProcessMedianMs;
    row('targets', 'floor of the turn ratio: (in-process turn + one BullMQ flow round trip) / in-process turn, no fleet state or tools (sections 1, 6)', `${fmt(floorRatio)}x`);
  }

  results.targets = targets;

  const wallSeconds = (Date.now() - wallStarted) / 1000;
  results.wallSeconds = wallSeconds;
  results.rows = rows;
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, 'latest.json'), JSON.stringify(results, null, 2) + '\n');
  writeSvg(join(RESULTS_DIR, 'latest.svg'));

  const sectionWidth = Math.max(...rows.map((entry) => entry.section.length), 7);
  const metricWidth = Math.max(...rows.map((entry) => entry.metric.length), 6);
  const valueWidth = Math.min(60, Math.max(...rows.map((entry) => entry.value.length), 5));
  const line = (a: string, b: string, c: string, d = '') => `${a.padEnd(sectionWidth)} | ${b.padEnd(metricWidth)} | ${d ? `${c.padEnd(valueWidth)} | ${d}` : c}`;
  const out = [line('section', 'metric', 'value', 'target (issue #17)'), `${'-'.repeat(sectionWidth)}-+-${'-'.repeat(metricWidth)}-+-${'-'.repeat(valueWidth)}-+-${'-'.repeat(20)}`];
  for (const entry of rows) out.push(line(entry.section, entry.metric, entry.value, entry.target ?? ''));
  out.push(`total wall time: ${wallSeconds.toFixed(1)} s  (results: ${join(RESULTS_DIR, 'latest.json')}, latest.svg)`);
  process.stdout.write(out.join('\n') + '\n');
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
