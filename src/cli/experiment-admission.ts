// `buildfleet experiment admission`: N builds submitted at once against the simulator's
// input-tokens-per-minute limit (`buildfleet sim --rate-limits`), twice — the fleet-wide admission
// limiter off, then on (src/model/model-rate-limiter.ts, docs/admission.md) — each time on a fresh
// fleet of separate processes (private Redis, simulator, API, model and tool workers). It prints,
// for both: the 429s the simulator answered, builds finished, wall time from the first submission
// to the last run's end, and the waits the limiter imposed. The 429s and the tokens are counted
// from the simulator's request log (what the provider saw), the rest from the runs' records.
// Each half is bounded by --timeout-s: a run not ended by then counts as unfinished.
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { createKeySpace, RunEngine } from '../engine/index.js';
import { isTerminal } from '../domain/run-outcomes.js';
import { ApiClient } from './api-client.js';
import { startDevFleet } from './dev-fleet.js';
import type { SimulatorRequestSummary } from './experiment-production.js';

export interface AdmissionExperimentOptions {
  runs: number;
  /** The simulated key's limits, per minute. */
  requestsPerMinute: number;
  inputTokensPerMinute: number;
  outputTokensPerMinute: number;
  profile: string;
  modelWorkers: number;
  toolWorkers: number;
  /** Bound of each half. */
  timeoutMs: number;
  log?: (line: string) => void;
}

export interface AdmissionHalfResult {
  limiter: 'off' | 'on';
  runs: number;
  succeeded: number;
  /** Ended otherwise (failed: rate_limit_exhausted after too many 429s, …), by error code. */
  failedBy: Record<string, number>;
  unfinished: number;
  modelCalls: number;
  rateLimited429: number;
  /** Input tokens the simulator counted toward its limit (uncached input + cache writes). */
  countedInputTokens: number;
  /** model-admission-wait events and the time they asked for in total. */
  admissionWaits: number;
  admissionWaitMs: number;
  wallMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function simulatorRequests(url: string): Promise<SimulatorRequestSummary[]> {
  const response = await fetch(`${url}/_sim/requests`);
  if (!response.ok) throw new Error(`simulator GET /_sim/requests answered ${response.status}`);
  return ((await response.json()) as { requests: SimulatorRequestSummary[] }).requests;
}

/** One half: a fresh fleet, the builds at once, until every run ended or the bound passed. */
export async function runAdmissionHalf(options: AdmissionExperimentOptions, limiter: 'off' | 'on'): Promise<AdmissionHalfResult> {
  const log = options.log ?? (() => undefined);
  const limits = `${options.requestsPerMinute},${options.inputTokensPerMinute},${options.outputTokensPerMinute}`;
  const prefix = `admission-${limiter}`;
  const fleet = await startDevFleet({
    writeStateFile: false,
    modelWorkers: options.modelWorkers,
    toolWorkers: options.toolWorkers,
    simulatorArgs: ['--profile', options.profile, '--rate-limits', limits, '--max-recorded-requests', '100000'],
    env: {
      BUILDFLEET_PREFIX: prefix,
      // One tenant submits every run at once: the API's per-tenant admission limits off.
      BUILDFLEET_MAX_CONCURRENT_RUNS: '0',
      BUILDFLEET_RATE_LIMIT_PER_MINUTE: '0',
      ANTHROPIC_API_KEY: '',
      BUILDFLEET_ADMISSION: limiter,
      // Seeded with the key's limits, as an operator who knows them would.
      BUILDFLEET_ADMISSION_LIMITS: limits,
    },
  });
  const redis = new Redis(fleet.redisUrl, { maxRetriesPerRequest: 3 });
  redis.on('error', () => undefined);
  try {
    const simulatorUrl = fleet.simulatorUrl;
    if (!simulatorUrl) throw new Error('the admission experiment needs the embedded simulator (unset ANTHROPIC_API_KEY)');
    const store = new RunEngine(redis, createKeySpace(prefix));
    const client = new ApiClient(fleet.apiUrl, fleet.apiKey);
    const started = Date.now();
    const ids = await Promise.all(
      Array.from(
        { length: options.runs },
        async (_, index) =>
          (await client.request<{ id: string }>('POST', '/v1/runs', { prompt: `Build a landing page for Harbor Bakery number ${index + 1}.` })).id,
      ),
    );
    log(`limiter ${limiter}: ${ids.length} builds submitted`);
    const ends = new Map<string, { status: string; errorCode: string | null; at: number }>();
    const deadline = started + options.timeoutMs;
    let lastReport = Date.now();
    while (ends.size < ids.length && Date.now() < deadline) {
      for (const id of ids) {
        if (ends.has(id)) continue;
        const run = await store.getRun(id);
        if (run && isTerminal(run.status)) ends.set(id, { status: run.status, errorCode: run.error?.code ?? null, at: Date.now() });
      }
      if (Date.now() - lastReport > 15_000) {
        lastReport = Date.now();
        log(`limiter ${limiter}: ${ends.size} / ${ids.length} ended after ${Math.round((Date.now() - started) / 1000)} s`);
      }
      await sleep(250);
    }
    const calls = (await simulatorRequests(simulatorUrl)).filter((request) => request.path === '/v1/messages');
    let admissionWaits = 0;
    let admissionWaitMs = 0;
    for (const id of ids) {
      for (const event of await store.readEvents(id, '-', 10_000)) {
        if (event.event !== 'model-admission-wait') continue;
        admissionWaits += 1;
        admissionWaitMs += typeof event.wait_ms === 'number' ? event.wait_ms : 0;
      }
    }
    const failedBy: Record<string, number> = {};
    for (const end of ends.values()) {
      if (end.status === 'succeeded') continue;
      const key = end.errorCode ?? end.status;
      failedBy[key] = (failedBy[key] ?? 0) + 1;
    }
    const lastEnd = Math.max(started, ...[...ends.values()].map((end) => end.at));
    return {
      limiter,
      runs: ids.length,
      succeeded: [...ends.values()].filter((end) => end.status === 'succeeded').length,
      failedBy,
      unfinished: ids.length - ends.size,
      modelCalls: calls.length,
      rateLimited429: calls.filter((call) => call.status === 429).length,
      countedInputTokens: calls.reduce((sum, call) => sum + (call.usage ? call.usage.input_tokens + (call.usage.cache_creation_input_tokens ?? 0) : 0), 0),
      admissionWaits,
      admissionWaitMs,
      wallMs: (ends.size < ids.length ? Date.now() : lastEnd) - started,
    };
  } finally {
    redis.disconnect();
    await fleet.stop();
  }
}

export interface AdmissionExperimentResult {
  off: AdmissionHalfResult;
  on: AdmissionHalfResult;
  /** 1 − 429s with / 429s without (1 when neither half met any). */
  rateLimitCut: number;
  /** The issue's bounds: every build finished with the limiter, 429s cut by at least 90%, no more
   * wall time than without it (WALL_TIME_TOLERANCE above it at most). */
  boundsHeld: boolean;
}

/** Both halves need about the limit's time for the same tokens, so their wall times differ by
 * run-to-run noise (~1 % measured on 100 builds); a limiter slower than that fails the bound. */
const WALL_TIME_TOLERANCE = 0.02;

export async function runAdmissionExperiment(options: AdmissionExperimentOptions): Promise<AdmissionExperimentResult> {
  const off = await runAdmissionHalf(options, 'off');
  const on = await runAdmissionHalf(options, 'on');
  const rateLimitCut = off.rateLimited429 === 0 ? (on.rateLimited429 === 0 ? 1 : 0) : 1 - on.rateLimited429 / off.rateLimited429;
  const boundsHeld = on.succeeded === on.runs && rateLimitCut >= 0.9 && on.wallMs <= off.wallMs * (1 + WALL_TIME_TOLERANCE);
  return { off, on, rateLimitCut, boundsHeld };
}

export function formatAdmissionResult(
  result: AdmissionExperimentResult,
  options: Pick<AdmissionExperimentOptions, 'inputTokensPerMinute' | 'profile'>,
): string {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const finished = (half: AdmissionHalfResult) => {
    const failures = Object.entries(half.failedBy).map(([code, count]) => `${code} ${count}`);
    const failed = failures.length > 0 ? ` (failed: ${failures.join(', ')})` : '';
    return `${half.succeeded} / ${half.runs}${failed}${half.unfinished > 0 ? ` (unfinished ${half.unfinished})` : ''}`;
  };
  const rows: Array<[string, string, string]> = [
    ['', 'limiter off', 'limiter on'],
    ['429s received', String(result.off.rateLimited429), String(result.on.rateLimited429)],
    ['builds finished', finished(result.off), finished(result.on)],
    ['wall time', seconds(result.off.wallMs), seconds(result.on.wallMs)],
    ['model calls', String(result.off.modelCalls), String(result.on.modelCalls)],
    ['input tokens counted (uncached + cache writes)', String(result.off.countedInputTokens), String(result.on.countedInputTokens)],
    ['admission waits (total asked)', `${result.off.admissionWaits}`, `${result.on.admissionWaits} (${seconds(result.on.admissionWaitMs)})`],
  ];
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd(),
  );
  lines.push('');
  lines.push(`simulated limit: ${options.inputTokensPerMinute} input tokens per minute, profile ${options.profile}`);
  lines.push(
    `429s cut by ${(result.rateLimitCut * 100).toFixed(0)} %; bounds (every build ` +
      `finished with the limiter, 429s cut by at least 90 %, no more wall time, ` +
      `±${WALL_TIME_TOLERANCE * 100} %): ${result.boundsHeld ? 'held' : 'NOT held'}`,
  );
  return lines.join('\n');
}

export async function runAdmissionExperimentCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', default: '100' },
      itpm: { type: 'string', default: '200000' },
      rpm: { type: 'string', default: '100000' },
      otpm: { type: 'string', default: '100000000' },
      profile: { type: 'string', default: 'instant' },
      'model-workers': { type: 'string', default: '2' },
      'tool-workers': { type: 'string', default: '2' },
      'timeout-s': { type: 'string', default: '600' },
    },
  });
  const number = (name: keyof typeof values) => {
    const value = Number(values[name]);
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number of at least 1`);
    return value;
  };
  const options: AdmissionExperimentOptions = {
    runs: number('runs'),
    inputTokensPerMinute: number('itpm'),
    requestsPerMinute: number('rpm'),
    outputTokensPerMinute: number('otpm'),
    profile: String(values.profile),
    modelWorkers: number('model-workers'),
    toolWorkers: number('tool-workers'),
    timeoutMs: number('timeout-s') * 1000,
    log: (line) => console.error(`[admission] ${line}`),
  };
  const result = await runAdmissionExperiment(options);
  console.log(formatAdmissionResult(result, options));
  return result.boundsHeld ? 0 : 1;
}
