// `npm run bench` (issue #10): the fleet's figures on this machine, from one command.
//
// Starts its own private redis-server (or uses REDIS_URL), runs the sections below, prints one
// table and writes bench/results/latest.json and bench/results/latest.svg. Every loop is bounded
// in count and in time; everything listens on loopback. A failing section prints its error in its
// row and the others still run.
//
//   1. per-turn overhead   fleet turn (turn-start gaps) vs raw BullMQ ping-pong vs in-process loop
//   2. throughput          1, 2, 4 model + tool worker processes (dev fleet), 60 runs via REST
//   3. concurrency         1,000 runs at 1–3 s model latency, one process; RSS, loop delay
//   4. parser              calls/s on a realistic mix; worst of 1 MB adversarial inputs
//   5. kill switch         last write start − trip under load (runKillSwitchExperiment)
//   +  bottleneck          Redis commands per turn (INFO commandstats over section 3)
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Anthropic from '@anthropic-ai/sdk';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { startInProcessFleet } from '../src/dev/in-process-fleet.js';
import { startPrivateRedis, type PrivateRedis } from '../src/dev/private-redis.js';
import { startDevFleet } from '../src/cli/dev-fleet.js';
import { startSimulator } from '../src/sim/simulator-server.js';
import { parseToolCallsFromText, createJsonSchemaValidator, type ParseOptions } from '../src/parsing/index.js';
import { runKillSwitchExperiment } from '../src/cli/experiment-killswitch.js';
import { anthropicToolsFor } from '../src/tools/tool-catalog.js';
import { ALL_TOOLS } from '../src/agent/profile.js';
import { createKeySpace } from '../src/runs/keys.js';
import { isTerminal, type RunStatus } from '../src/runs/run-types.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS_DIR = join(HERE, 'results');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const QUICK = process.env.BENCH_QUICK === '1';

interface Row {
  section: string;
  metric: string;
  value: string;
}
const rows: Row[] = [];
const results: Record<string, unknown> = {};
const row = (section: string, metric: string, value: string | number) => {
  rows.push({ section, metric, value: typeof value === 'number' ? fmt(value) : value });
  process.stderr.write(`  [${section}] ${metric}: ${typeof value === 'number' ? fmt(value) : value}\n`);
};

function fmt(value: number): string {
  if (!Number.isFinite(value)) return String(value);
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
  if (only && !only.split(',').some((prefix) => name.startsWith(prefix))) return;
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

async function redisInfo(redis: Redis, part: string): Promise<Record<string, string>> {
  const text = await redis.info(part);
  const out: Record<string, string> = {};
  for (const line of text.split('\r\n')) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) out[line.slice(0, at)] = line.slice(at + 1);
  }
  return out;
}

async function redisCpuSeconds(redis: Redis): Promise<number> {
  const cpu = await redisInfo(redis, 'cpu');
  return Number(cpu.used_cpu_sys ?? 0) + Number(cpu.used_cpu_user ?? 0);
}

async function commandCalls(redis: Redis): Promise<Map<string, number>> {
  const stats = await redisInfo(redis, 'commandstats');
  const calls = new Map<string, number>();
  for (const [key, value] of Object.entries(stats)) {
    const match = /calls=(\d+)/.exec(value);
    if (match) calls.set(key.replace(/^cmdstat_/, ''), Number(match[1]));
  }
  return calls;
}

/** utime + stime of a process in seconds (Linux /proc; 0 elsewhere). */
function procCpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Peak resident set (VmHWM) of a process in MB (Linux /proc; 0 elsewhere). */
function procPeakRssMb(pid: number | undefined): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

const FLEET_ENV = {
  BUILDFLEET_RATE_LIMIT_PER_MINUTE: '0',
  BUILDFLEET_MAX_CONCURRENT_RUNS: '0',
  LOG_LEVEL: 'silent',
};

// ---- 1. per-turn orchestration overhead ------------------------------------------------------

async function fleetTurnGaps(redisUrl: string, runs: number): Promise<{ gaps: number[]; runsDone: number }> {
  const fleet = await startInProcessFleet({ redisUrl, env: FLEET_ENV, simulator: { latencyMs: { min: 0, max: 0 } } });
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
      const starts = (await fleet.fleet.store.readEvents(run.id, '-', 10_000)).filter((event) => event.event === 'turn-start');
      for (let at = 1; at < starts.length; at += 1) gaps.push(streamIdMs(starts[at]!.id) - streamIdMs(starts[at - 1]!.id));
    }
  } finally {
    await fleet.close();
  }
  return { gaps, runsDone };
}

async function bullmqPingPong(redisUrl: string, roundTrips: number): Promise<number[]> {
  const prefix = `bfbench${randomBytes(3).toString('hex')}`;
  const connection = { url: redisUrl, maxRetriesPerRequest: null } as const;
  const queueA = new Queue('ping', { connection, prefix });
  const queueB = new Queue('pong', { connection, prefix });
  const samples: number[] = [];
  let lastSentAt = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  let count = 0;
  const opts = { removeOnComplete: 1000, removeOnFail: 1000 };
  const workerA = new Worker(
    'ping',
    async (job) => {
      await queueB.add('pong', { n: job.data.n }, opts);
    },
    { connection, prefix, concurrency: 1 },
  );
  const workerB = new Worker(
    'pong',
    async (job) => {
      const now = performance.now();
      if (lastSentAt > 0) samples.push(now - lastSentAt);
      count += 1;
      if (count > roundTrips) return done();
      lastSentAt = performance.now();
      await queueA.add('ping', { n: job.data.n + 1 }, opts);
    },
    { connection, prefix, concurrency: 1 },
  );
  try {
    await Promise.all([workerA.waitUntilReady(), workerB.waitUntilReady()]);
    lastSentAt = 0;
    await queueA.add('ping', { n: 0 }, opts);
    await withTimeout(finished, 60_000, 'bullmq ping-pong');
  } finally {
    await Promise.all([workerA.close(true), workerB.close(true)]);
    await Promise.all([queueA.obliterate({ force: true }).catch(() => undefined), queueB.obliterate({ force: true }).catch(() => undefined)]);
    await Promise.all([queueA.close(), queueB.close()]);
  }
  // The first 10 are warm-up.
  return samples.slice(10);
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
      const response = await client.messages.create(
        { model: 'claude-sonnet-4-6', max_tokens: 4096, system: 'You build websites with tools.', messages, tools },
        { headers: { 'x-buildfleet-run-id': `bench-${conversation}` } },
      );
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

// ---- 2. throughput with N worker processes ----------------------------------------------------

async function throughput(redisUrl: string, workers: number, runCount: number, capMs: number): Promise<Record<string, number>> {
  const prefix = `bfbench${workers}w${randomBytes(3).toString('hex')}`;
  const fleet = await startDevFleet({
    env: { ...FLEET_ENV, REDIS_URL: redisUrl, BUILDFLEET_AUTH: 'disabled', BUILDFLEET_PREFIX: prefix, LOG_LEVEL: 'info' },
    modelWorkers: workers,
    toolWorkers: workers,
    writeStateFile: false,
  });
  const redis = new Redis(redisUrl);
  try {
    const keys = createKeySpace(prefix);
    const cpuBefore = await redisCpuSeconds(redis);
    const roleCpu = (match: string) => fleet.roles.filter((role) => role.name.startsWith(match)).reduce((sum, role) => sum + procCpuSeconds(role.child.pid), 0);
    const roleCpuBefore = { model: roleCpu('model'), tool: roleCpu('tool'), api: roleCpu('api'), sim: roleCpu('simulator') };
    const started = performance.now();
    const ids = await Promise.all(
      Array.from({ length: runCount }, async (_, index) => {
        const response = await fetch(`${fleet.apiUrl}/v1/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: `Build a small website for bakery number ${index + 1}.` }),
        });
        const body = (await response.json()) as { id?: string };
        if (!response.ok || !body.id) throw new Error(`POST /v1/runs ${response.status}: ${JSON.stringify(body).slice(0, 200)}`);
        return body.id;
      }),
    );
    const deadline = Date.now() + capMs;
    let finished = 0;
    let turns = 0;
    let endedAt = performance.now();
    for (;;) {
      const states = await Promise.all(ids.map((id) => redis.hmget(keys.run(id), 'status', 'turn')));
      finished = states.filter(([status]) => status && (isTerminal(status as RunStatus) || status === 'waiting_for_input')).length;
      turns = states.reduce((sum, [, turn]) => sum + Number(turn ?? 0), 0);
      endedAt = performance.now();
      if (finished === ids.length || Date.now() > deadline) break;
      await sleep(100);
    }
    const seconds = (endedAt - started) / 1000;
    const cpu = (await redisCpuSeconds(redis)) - cpuBefore;
    const memory = await redisInfo(redis, 'memory');
    const workerPeaks = fleet.roles.filter((role) => role.name.includes('worker')).map((role) => procPeakRssMb(role.child.pid));
    return {
      workers,
      modelWorkersCpuPercent: ((roleCpu('model') - roleCpuBefore.model) / seconds) * 100,
      toolWorkersCpuPercent: ((roleCpu('tool') - roleCpuBefore.tool) / seconds) * 100,
      apiCpuPercent: ((roleCpu('api') - roleCpuBefore.api) / seconds) * 100,
      simulatorCpuPercent: ((roleCpu('simulator') - roleCpuBefore.sim) / seconds) * 100,
      maxWorkerPeakRssMb: Math.max(0, ...workerPeaks),
      runs: ids.length,
      finished,
      turns,
      seconds,
      turnsPerSecond: turns / seconds,
      runsPerMinute: (finished / seconds) * 60,
      redisCpuSeconds: cpu,
      redisCpuPercent: (cpu / seconds) * 100,
      redisUsedMemoryMb: Number(memory.used_memory ?? 0) / 1024 / 1024,
      redisUsedMemoryHuman: memory.used_memory_human as unknown as number,
    };
  } finally {
    redis.disconnect();
    await fleet.stop();
  }
}

// ---- 3. concurrency at realistic latency -----------------------------------------------------

async function concurrency(redisUrl: string, runCount: number, capMs: number) {
  const admin = new Redis(redisUrl);
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  const fleet = await startInProcessFleet({
    redisUrl,
    env: { ...FLEET_ENV, BUILDFLEET_MODEL_CONCURRENCY: '1000', BUILDFLEET_TOOL_CONCURRENCY: '200' },
    simulator: { latencyMs: { min: 1000, max: 3000 } },
  });
  try {
    await fleet.waitForRun((await fleet.submit({})).id, 60_000);
    global.gc?.();
    await sleep(200);
    const baselineRss = process.memoryUsage().rss;
    let peakRss = baselineRss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 100);
    await admin.config('RESETSTAT');
    const cpuBefore = await redisCpuSeconds(admin);
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
    const deadline = Date.now() + capMs;
    let finished = 0;
    let turns = 0;
    let succeeded = 0;
    // The bench's own polling commands, subtracted from the command counts below.
    let ownHmget = 0;
    for (;;) {
      ownHmget += ids.length;
      const states = await Promise.all(ids.map((id) => fleet.fleet.redis.hmget(fleet.fleet.store.keys.run(id), 'status', 'turn')));
      finished = states.filter(([status]) => status && (isTerminal(status as RunStatus) || status === 'waiting_for_input')).length;
      succeeded = states.filter(([status]) => status === 'succeeded').length;
      turns = states.reduce((sum, [, turn]) => sum + Number(turn ?? 0), 0);
      if (finished === ids.length || Date.now() > deadline) break;
      await sleep(1000);
    }
    const seconds = (performance.now() - started) / 1000;
    const cpuUsage = process.cpuUsage(cpuUsageBefore);
    loopDelay.disable();
    clearInterval(sampler);
    const cpu = (await redisCpuSeconds(admin)) - cpuBefore;
    const calls = await commandCalls(admin);
    calls.set('hmget', Math.max(0, (calls.get('hmget') ?? 0) - ownHmget));
    const totalCalls = [...calls.values()].reduce((a, b) => a + b, 0);
    const top = [...calls.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([command, count]) => ({ command, perTurn: count / Math.max(1, turns) }));
    return {
      runs: ids.length,
      finished,
      succeeded,
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
      redisCommandsPerTurn: totalCalls / Math.max(1, turns),
      topCommandsPerTurn: top,
    };
  } finally {
    admin.disconnect();
    await fleet.close();
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

async function main(): Promise<void> {
  const wallStarted = Date.now();
  let privateRedis: PrivateRedis | null = null;
  const dataDir = mkdtempSync(join(tmpdir(), 'buildfleet-bench-'));
  const redisUrl = process.env.REDIS_URL ?? (privateRedis = await startPrivateRedis({ dataDir })).url;
  results.startedAt = new Date(wallStarted).toISOString();
  results.machine = { cpus: (await import('node:os')).cpus().length, node: process.version };
  results.redis = process.env.REDIS_URL ? 'REDIS_URL' : 'private redis-server (AOF everysec)';
  try {
    await section('1 turn overhead', 150_000, async () => {
      const fleetRuns = QUICK ? 5 : 30;
      const { gaps, runsDone } = await fleetTurnGaps(redisUrl, fleetRuns);
      const bull = await bullmqPingPong(redisUrl, QUICK ? 100 : 500);
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
      row('1 turn overhead', `in-process loop (SDK→sim + tool) median / p99 (${loop.length})`, `${fmt(turn.inProcessMedianMs)} / ${fmt(turn.inProcessP99Ms)} ms`);
      row('1 turn overhead', 'ratio fleet / raw BullMQ (median)', `${fmt(turn.fleetMedianMs / turn.bullmqMedianMs)}x`);
      row('1 turn overhead', 'ratio fleet / in-process (median)', `${fmt(turn.fleetMedianMs / turn.inProcessMedianMs)}x`);
    });

    await section('2 throughput', 300_000, async () => {
      const list: Array<Record<string, number>> = [];
      results.throughput = list;
      for (const workers of QUICK ? [1] : [1, 2, 4]) {
        try {
          const figures = await throughput(redisUrl, workers, QUICK ? 20 : 60, 70_000);
          list.push(figures);
          row(
            '2 throughput',
            `${workers} model + ${workers} tool procs: ${figures.finished}/${figures.runs} runs, ${figures.turns} turns in ${fmt(figures.seconds!)} s`,
            `${fmt(figures.turnsPerSecond!)} turns/s, ${fmt(figures.runsPerMinute!)} runs/min`,
          );
          row('2 throughput', `${workers}+${workers} procs: Redis CPU / memory at end`, `${fmt(figures.redisCpuPercent!)} % of a core, ${figures.redisUsedMemoryHuman}`);
          row(
            '2 throughput',
            `${workers}+${workers} procs: CPU % of a core (model / tool / api / sim); peak worker RSS`,
            `${fmt(figures.modelWorkersCpuPercent!)} / ${fmt(figures.toolWorkersCpuPercent!)} / ${fmt(figures.apiCpuPercent!)} / ${fmt(figures.simulatorCpuPercent!)}; ${fmt(figures.maxWorkerPeakRssMb!)} MB`,
          );
        } catch (error) {
          row('2 throughput', `${workers}+${workers} procs: ERROR`, (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 160));
        }
      }
    });

    await section('3 concurrency', 290_000, async () => {
      const runCount = QUICK ? 100 : 1000;
      const figures = await concurrency(redisUrl, runCount, 240_000);
      results.concurrency = figures;
      row('3 concurrency', `${runCount} runs at 1–3 s model latency, 1 process: finished (succeeded)`, `${figures.finished}/${figures.runs} (${figures.succeeded}) in ${fmt(figures.seconds)} s`);
      row('3 concurrency', 'turns / turns per s', `${figures.turns} / ${fmt(figures.turnsPerSecond)}`);
      row('3 concurrency', 'RSS baseline → peak; per in-flight run', `${fmt(figures.baselineRssMb)} → ${fmt(figures.peakRssMb)} MB; ${fmt(figures.kbPerInFlightRun)} KB`);
      row('3 concurrency', 'event loop delay p50 / p99 / max', `${fmt(figures.loopDelayP50Ms)} / ${fmt(figures.loopDelayP99Ms)} / ${fmt(figures.loopDelayMaxMs)} ms`);
      row('3 concurrency', 'Redis CPU; commands per turn', `${fmt(figures.redisCpuPercent)} % of a core; ${fmt(figures.redisCommandsPerTurn)}`);
      row('3 concurrency', 'fleet process CPU (workers + API + simulator, one event loop)', `${fmt(figures.fleetProcessCpuPercent)} % of a core`);
      const verdict =
        figures.fleetProcessCpuPercent > 80 && figures.redisCpuPercent < 50
          ? `Node CPU of the fleet process (${fmt(figures.fleetProcessCpuPercent)} % of a core, loop delay p99 ${fmt(figures.loopDelayP99Ms)} ms) saturates before Redis (${fmt(figures.redisCpuPercent)} %)`
          : figures.redisCpuPercent >= 50
            ? `Redis CPU (${fmt(figures.redisCpuPercent)} % of a core) at ${fmt(figures.redisCommandsPerTurn)} commands per turn`
            : `neither saturated: fleet process ${fmt(figures.fleetProcessCpuPercent)} %, Redis ${fmt(figures.redisCpuPercent)} % of a core`;
      results.bottleneck = verdict;
      row('bottleneck', 'first bottleneck (section 3)', verdict);
      row('bottleneck', 'top Redis commands per turn', figures.topCommandsPerTurn.slice(0, 6).map((entry) => `${entry.command} ${fmt(entry.perTurn)}`).join(', '));
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
  } finally {
    await privateRedis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const wallSeconds = (Date.now() - wallStarted) / 1000;
  results.wallSeconds = wallSeconds;
  results.rows = rows;
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, 'latest.json'), JSON.stringify(results, null, 2) + '\n');
  writeSvg(join(RESULTS_DIR, 'latest.svg'));

  const sectionWidth = Math.max(...rows.map((entry) => entry.section.length), 7);
  const metricWidth = Math.max(...rows.map((entry) => entry.metric.length), 6);
  const line = (a: string, b: string, c: string) => `${a.padEnd(sectionWidth)} | ${b.padEnd(metricWidth)} | ${c}`;
  const out = [line('section', 'metric', 'value'), `${'-'.repeat(sectionWidth)}-+-${'-'.repeat(metricWidth)}-+-${'-'.repeat(20)}`];
  for (const entry of rows) out.push(line(entry.section, entry.metric, entry.value));
  out.push(`total wall time: ${wallSeconds.toFixed(1)} s  (results: bench/results/latest.json, latest.svg)`);
  process.stdout.write(out.join('\n') + '\n');
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
