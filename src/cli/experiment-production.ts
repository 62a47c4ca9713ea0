// `buildfleet experiment production`: N builds against the simulator's realistic profile — real
// time to first token and output speed, pages of thousands of tokens, thinking on for half of the
// runs — through separate API and worker processes, with one overload episode (every call answered
// 529 for a while) and one rate-limit episode (the simulator's token buckets shrunk) in the middle.
// It reports what a production operator pays for: builds that succeeded, wall time per build,
// model calls the client abandoned, conversations paid for twice, turns and tokens by class.
// Everything is read from the simulator's own request log (what the "provider" saw and billed)
// and from the runs' records, not from the fleet's opinion of itself.
// With --model (repeatable, or a comma list) it runs once per model and prints one table each,
// with the runs' rates from their events (experiment-run-tally.ts) and the input USD as billed
// against the same input tokens priced uncached. A model without manual thinking runs every build
// without it (the thinking share needs `thinking.budget_tokens`).
import { parseArgs } from 'node:util';
import { lookupModelCapabilities } from '../domain/model-capabilities.js';
import { lookupModelPrice } from '../domain/model-prices.js';
import { costMicroUsd, microUsdToUsd } from '../domain/usage-cost.js';
import { EMPTY_USAGE, totalInputTokens, usageFromApi, type UsageByClass } from '../domain/usage.js';
import { modelListOption } from './model-list-option.js';
import { percent } from './experiment-arm-tally.js';
import { newRunTally, tallyRunEvents, type RunTally } from './experiment-run-tally.js';
import { Redis } from 'ioredis';
import { createKeySpace, RunEngine } from '../engine/index.js';
import { ApiClient } from './api-client.js';
import { startDevFleet } from './dev-fleet.js';
import { isTerminal, type RunStatus } from '../domain/run-outcomes.js';

export interface ProductionExperimentOptions {
  runs: number;
  /** Share of runs with extended thinking on (0..1). */
  thinkingShare: number;
  thinkingBudget: number;
  overloadAfterMs: number;
  overloadMs: number;
  rateLimitAfterMs: number;
  rateLimitMs: number;
  timeoutMs: number;
  profile: string;
  modelWorkers: number;
  toolWorkers: number;
  /** Time between two submissions: traffic arrives over time, so the episodes meet runs in every phase. */
  submitIntervalMs: number;
  /** The runs' model; absent: the fleet's default. */
  model?: string;
  log?: (line: string) => void;
}

/** One /v1/messages request as the simulator's log summarizes it (GET /_sim/requests). */
export interface SimulatorRequestSummary {
  timestampMs: number;
  path: string;
  runId: string | null;
  requestId: string | null;
  stopReason: string | null;
  status: number;
  durationMs: number | null;
  streamed?: boolean;
  /** The client closed the connection before the answer was complete. */
  abandoned?: boolean;
  /** Hash of the request body without transport fields: equal hashes = the same conversation sent again. */
  conversationHash?: string | null;
  usage?: {
    input_tokens: number;
    output_tokens: number;
    cache_creation_input_tokens?: number;
    cache_read_input_tokens?: number;
  } | null;
  fault: string | null;
}

interface RunSummary {
  id: string;
  thinking: boolean;
  status: string;
  errorCode: string | null;
  turns: number;
  wallMs: number;
}

export interface ProductionExperimentResult {
  /** The runs' model (null: the fleet's default). */
  model: string | null;
  runs: RunSummary[];
  tally: RunTally;
  /** Input cost of every answered call as billed, and of the same input tokens priced uncached. */
  inputMicroUsd: number;
  inputUncachedMicroUsd: number;
  succeeded: number;
  wallMsPerBuild: { median: number; max: number };
  modelCalls: number;
  answered200: number;
  overloaded529: number;
  rateLimited429: number;
  otherErrors: number;
  abandoned: number;
  paidTwice: number;
  callsDuringBackoff: number;
  /** The longest answered call: how long the model wrote, and how much. */
  longestCall: { durationMs: number; outputTokens: number };
  /** Answered calls of at least 60 s, each one that a 60 s total client timeout would have abandoned. */
  callsOverAMinute: number;
  turns: number;
  tokens: { input: number; cacheWrite: number; cacheRead: number; output: number };
  durationMs: number;
}

/** The rate-limit episode: the simulator's requests-per-minute bucket shrunk to this (one API key). */
const EPISODE_REQUESTS_PER_MINUTE = 6;

const PREFIX = 'production';
/** A call already on its way when a pause was set may reach the simulator just after it; the
 * pause's recorded window ends a few ms after the pause did (see below). */
const IN_FLIGHT_GRACE_MS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function simulator(url: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`simulator ${method} ${path} answered ${response.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

export async function runProductionExperiment(options: ProductionExperimentOptions): Promise<ProductionExperimentResult> {
  const log = options.log ?? (() => undefined);
  const started = Date.now();
  const fleet = await startDevFleet({
    writeStateFile: false,
    modelWorkers: options.modelWorkers,
    toolWorkers: options.toolWorkers,
    simulatorArgs: ['--profile', options.profile, '--max-recorded-requests', '100000'],
    env: {
      BUILDFLEET_PREFIX: PREFIX,
      // One tenant submits every run at once: per-tenant admission limits off.
      BUILDFLEET_MAX_CONCURRENT_RUNS: '0',
      BUILDFLEET_RATE_LIMIT_PER_MINUTE: '0',
      ANTHROPIC_API_KEY: '',
    },
  });
  // The runs' records and events, read straight from Redis for the analysis.
  let store: RunEngine | null = null;
  try {
    const simulatorUrl = fleet.simulatorUrl;
    if (!simulatorUrl) throw new Error('the production experiment needs the embedded simulator (unset ANTHROPIC_API_KEY)');
    await simulator(simulatorUrl, 'DELETE', '/_sim/requests');
    store = new RunEngine(new Redis(fleet.redisUrl, { maxRetriesPerRequest: 3 }), createKeySpace(PREFIX));
    const client = new ApiClient(fleet.apiUrl, fleet.apiKey);
    const manualThinking = options.model === undefined || lookupModelCapabilities({ model: options.model, overrides: {} }).capabilities.thinking;
    const thinkingRuns = manualThinking ? Math.round(options.runs * options.thinkingShare) : 0;
    const submitted: Array<{ id: string; thinking: boolean; at: number }> = [];
    const experimentStart = Date.now();
    // The episodes, scheduled from the first submission.
    const episodes = (async () => {
      await sleep(options.overloadAfterMs);
      log(`overload episode: every call answered 529 for ${options.overloadMs / 1000} s`);
      await simulator(simulatorUrl, 'POST', '/_sim/faults', { kind: 'overload_episode', durationMs: options.overloadMs });
      await sleep(Math.max(0, options.rateLimitAfterMs - (Date.now() - experimentStart)));
      log(`rate-limit episode: ${EPISODE_REQUESTS_PER_MINUTE} requests per minute for ${options.rateLimitMs / 1000} s`);
      const { limits: before } = (await simulator(simulatorUrl, 'GET', '/_sim/rate-limits')) as { limits: Record<string, number> };
      await simulator(simulatorUrl, 'PUT', '/_sim/rate-limits', { requestsPerMinute: EPISODE_REQUESTS_PER_MINUTE });
      await sleep(options.rateLimitMs);
      await simulator(simulatorUrl, 'PUT', '/_sim/rate-limits', { requestsPerMinute: before.requestsPerMinute });
      log('rate-limit episode over');
    })().catch((error: unknown) => log(`episode failed: ${error instanceof Error ? error.message : String(error)}`));
    for (let index = 0; index < options.runs; index += 1) {
      if (index > 0) await sleep(options.submitIntervalMs);
      const thinking = index % 2 === 1 && submitted.filter((run) => run.thinking).length < thinkingRuns;
      const created = await client.request<{ id: string }>('POST', '/v1/runs', {
        prompt: `Build a landing page for Harbor Bakery number ${index + 1}, with an about page.`,
        ...(options.model ? { model: options.model } : {}),
        ...(thinking ? { thinking: { budgetTokens: options.thinkingBudget } } : {}),
      });
      submitted.push({ id: created.id, thinking, at: Date.now() });
    }
    log(`submitted ${submitted.length} runs (${thinkingRuns} with thinking), one every ${options.submitIntervalMs / 1000} s`);

    const finals = new Map<string, RunSummary>();
    const deadline = Date.now() + options.timeoutMs;
    while (finals.size < submitted.length && Date.now() < deadline) {
      for (const run of submitted) {
        if (finals.has(run.id)) continue;
        const view = await client.request<{ status: RunStatus; turn: number; error: { code: string } | null; updatedAt: string }>('GET', `/v1/runs/${run.id}`);
        if (!isTerminal(view.status)) continue;
        finals.set(run.id, {
          id: run.id,
          thinking: run.thinking,
          status: view.status,
          errorCode: view.error?.code ?? null,
          turns: view.turn,
          wallMs: Date.now() - run.at,
        });
        log(`${run.id} ${view.status}${view.error ? ` (${view.error.code})` : ''} after ${((Date.now() - run.at) / 1000).toFixed(0)} s`);
      }
      await sleep(1000);
    }
    await episodes;
    for (const run of submitted) {
      if (!finals.has(run.id))
        finals.set(run.id, { id: run.id, thinking: run.thinking, status: 'unfinished', errorCode: null, turns: 0, wallMs: Date.now() - run.at });
    }

    const { requests } = (await simulator(simulatorUrl, 'GET', '/_sim/requests')) as { requests: SimulatorRequestSummary[] };
    const calls = requests.filter((request) => request.path === '/v1/messages');
    const refusedBy = new Map<string, number>();
    for (const call of calls.filter((candidate) => candidate.status !== 200)) {
      const key = `${call.status} ${call.fault ?? '-'}`;
      refusedBy.set(key, (refusedBy.get(key) ?? 0) + 1);
    }
    log(`answers other than 200 (status fault: count): ${JSON.stringify(Object.fromEntries(refusedBy))}`);
    const paidByConversation = new Map<string, number>();
    for (const call of calls) {
      // A call is paid for once the model started generating: a 200 (finished or abandoned mid-stream).
      if (call.status !== 200 || !call.conversationHash) continue;
      paidByConversation.set(call.conversationHash, (paidByConversation.get(call.conversationHash) ?? 0) + 1);
    }
    // Each conversation paid for more than once, with what the run recorded around it: the events
    // say why the fleet sent it again.
    for (const [hash, count] of paidByConversation) {
      if (count < 2) continue;
      const paid = calls.filter((call) => call.conversationHash === hash && call.status === 200);
      const runId = paid[0]?.runId ?? '';
      log(
        `paid ${count}x: run ${runId}: ` +
          `${paid.map((call) => `${call.requestId} at ${new Date(call.timestampMs).toISOString()} for ${call.durationMs} ms, ${call.stopReason}`).join('; ')}`,
      );
      const events = await store.readEvents(runId, '-', 10_000);
      const firstAt = Math.min(...paid.map((call) => call.timestampMs)) - 2000;
      for (const event of events.filter(
        (candidate) => Date.parse(candidate.at) >= firstAt && /turn-start|model-|run-end/.test(candidate.event) && candidate.event !== 'model-progress',
      )) {
        const { run_id: _runId, id: _id, ...rest } = event;
        log(`    ${JSON.stringify(rest).slice(0, 400)}`);
      }
    }
    const tokens = { input: 0, cacheWrite: 0, cacheRead: 0, output: 0 };
    let inputMicroUsd = 0;
    let inputUncachedMicroUsd = 0;
    for (const call of calls) {
      if (!call.usage) continue;
      if (options.model) {
        // Priced per answer, as the fleet prices it (a banded price depends on the prompt's length).
        const usage = usageFromApi(call.usage);
        const { price } = lookupModelPrice({ model: options.model, overrides: {}, promptTokens: totalInputTokens(usage) });
        const inputOnly: UsageByClass = { ...usage, output_tokens: 0 };
        inputMicroUsd += costMicroUsd({ usage: inputOnly, price });
        inputUncachedMicroUsd += costMicroUsd({ usage: { ...EMPTY_USAGE, input_tokens: totalInputTokens(usage) }, price });
      }
      tokens.input += call.usage.input_tokens;
      tokens.output += call.usage.output_tokens;
      tokens.cacheWrite += call.usage.cache_creation_input_tokens ?? 0;
      tokens.cacheRead += call.usage.cache_read_input_tokens ?? 0;
    }
    // The fleet-wide pauses as the workers recorded them (model-overload-wait / model-rate-limit-wait: when,
    // and the pause then in force), and the calls the simulator received inside one. A call already
    // on its way when the pause was set may arrive just after it: IN_FLIGHT_GRACE_MS allows for that.
    const pauses: Array<{ from: number; until: number; event: string; runId: string }> = [];
    for (const run of submitted) {
      for (const event of await store.readEvents(run.id, '-', 10_000)) {
        if ((event.event === 'model-overload-wait' || event.event === 'model-rate-limit-wait') && typeof event.wait_ms === 'number') {
          pauses.push({ from: Date.parse(event.at), until: Date.parse(event.at) + event.wait_ms, event: event.event, runId: run.id });
        }
      }
    }
    // The grace applies at both ends: the event is written just after the pause was set, so
    // `at + wait_ms` ends the window a little later than the pause itself ended.
    const inPause = (call: SimulatorRequestSummary, pause: (typeof pauses)[number]) =>
      call.timestampMs > pause.from + IN_FLIGHT_GRACE_MS && call.timestampMs < pause.until - IN_FLIGHT_GRACE_MS;
    const duringBackoff = calls.filter((call) => pauses.some((pause) => inPause(call, pause)));
    for (const call of duringBackoff.slice(0, 10)) {
      const pause = pauses.find((candidate) => inPause(call, candidate))!;
      log(
        `call during a pause: ${call.requestId} of ${call.runId} arrived ${call.timestampMs - pause.from} ` +
          `ms into a ${pause.until - pause.from} ms pause (${pause.event} of ${pause.runId})`,
      );
    }
    const callsDuringBackoff = duringBackoff.length;
    const answered = calls.filter((call) => call.status === 200 && !call.abandoned);
    const longest = answered.reduce<SimulatorRequestSummary | null>((best, call) => ((call.durationMs ?? 0) > (best?.durationMs ?? -1) ? call : best), null);
    const runs = [...finals.values()];
    const tally = newRunTally();
    for (const run of submitted) tallyRunEvents(tally, await store.getRun(run.id), await store.readEvents(run.id, '-', 10_000));
    return {
      model: options.model ?? null,
      runs,
      tally,
      inputMicroUsd,
      inputUncachedMicroUsd,
      succeeded: runs.filter((run) => run.status === 'succeeded').length,
      wallMsPerBuild: { median: median(runs.map((run) => run.wallMs)), max: Math.max(0, ...runs.map((run) => run.wallMs)) },
      modelCalls: calls.length,
      answered200: calls.filter((call) => call.status === 200).length,
      overloaded529: calls.filter((call) => call.status === 529).length,
      rateLimited429: calls.filter((call) => call.status === 429).length,
      otherErrors: calls.filter((call) => call.status !== 200 && call.status !== 429 && call.status !== 529).length,
      abandoned: calls.filter((call) => call.abandoned === true).length,
      paidTwice: [...paidByConversation.values()].filter((count) => count > 1).length,
      callsDuringBackoff,
      longestCall: { durationMs: longest?.durationMs ?? 0, outputTokens: longest?.usage?.output_tokens ?? 0 },
      callsOverAMinute: answered.filter((call) => (call.durationMs ?? 0) >= 60_000).length,
      turns: runs.reduce((sum, run) => sum + run.turns, 0),
      tokens,
      durationMs: Date.now() - started,
    };
  } finally {
    store?.redis.disconnect();
    await fleet.stop();
  }
}

export function formatProductionResult(result: ProductionExperimentResult): string {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const failed = result.runs.filter((run) => run.status !== 'succeeded');
  const thinking = result.runs.filter((run) => run.thinking);
  const failedRuns = failed.map((run) => `${run.id}:${run.status}${run.errorCode ? `/${run.errorCode}` : ''}`).join(', ');
  const rows: Array<[string, string]> = [
    ['builds succeeded', `${result.succeeded} / ${result.runs.length}${failed.length > 0 ? `  (${failedRuns})` : ''}`],
    ['  of them with thinking', `${thinking.filter((run) => run.status === 'succeeded').length} / ${thinking.length}`],
    ['wall time per build', `median ${seconds(result.wallMsPerBuild.median)}, max ${seconds(result.wallMsPerBuild.max)}`],
    [
      'model calls (200 / 529 / 429 / other)',
      `${result.modelCalls} (${result.answered200} / ${result.overloaded529} / ${result.rateLimited429} / ${result.otherErrors})`,
    ],
    ['longest answered call', `${seconds(result.longestCall.durationMs)} for ${result.longestCall.outputTokens} output tokens`],
    ['answered calls of 60 s or more', String(result.callsOverAMinute)],
    ['model calls abandoned by the client', String(result.abandoned)],
    ['conversations paid for twice', String(result.paidTwice)],
    [`calls received during a fleet-wide pause (±${IN_FLIGHT_GRACE_MS} ms)`, String(result.callsDuringBackoff)],
    ['builds verified', `${result.tally.verifiedFinishes} / ${result.tally.runs}`],
    ['turns', String(result.turns)],
    [
      'tool_use_rate / json_in_text_rate / recovery_rate',
      `${percent(result.tally.toolUseTurns, result.tally.turnsExpectingTool)} / ` +
        `${percent(result.tally.jsonInTextTurns, result.tally.turnsExpectingTool)} ` +
        `/ ${percent(result.tally.recoveredTurns, result.tally.turnsExpectingTool)}`,
    ],
    [
      'invalid tool input (calls)',
      `${percent(result.tally.invalidInputCalls, result.tally.toolCalls)} (${result.tally.invalidInputCalls} / ${result.tally.toolCalls})`,
    ],
    [
      'tokens: input / cache write / cache read / output',
      `${result.tokens.input} / ${result.tokens.cacheWrite} / ${result.tokens.cacheRead} / ${result.tokens.output}`,
    ],
    ...(result.model
      ? ([
          [
            'input USD cached / same tokens uncached',
            `$${microUsdToUsd(result.inputMicroUsd).toFixed(4)} / ` +
              `$${microUsdToUsd(result.inputUncachedMicroUsd).toFixed(4)} = ${percent(result.inputMicroUsd, result.inputUncachedMicroUsd)}`,
          ],
        ] as Array<[string, string]>)
      : []),
    ['experiment wall time', seconds(result.durationMs)],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return [...(result.model ? [`model ${result.model}`] : []), ...rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`)].join('\n');
}

export async function runProductionExperimentCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', default: '20' },
      profile: { type: 'string', default: 'realistic' },
      'thinking-share': { type: 'string', default: '0.5' },
      'thinking-budget': { type: 'string', default: '2048' },
      'overload-after-s': { type: 'string', default: '20' },
      'overload-s': { type: 'string', default: '60' },
      'rate-limit-after-s': { type: 'string', default: '100' },
      'rate-limit-s': { type: 'string', default: '30' },
      'model-workers': { type: 'string', default: '2' },
      'tool-workers': { type: 'string', default: '2' },
      'submit-interval-s': { type: 'string', default: '3' },
      'timeout-s': { type: 'string', default: '900' },
      model: { type: 'string', multiple: true },
    },
  });
  const number = (name: keyof typeof values) => {
    const value = Number(values[name]);
    if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} must be a non-negative number`);
    return value;
  };
  const models = modelListOption(values.model);
  let exitCode = 0;
  for (const model of models) {
    const result = await runProductionExperiment({
      ...(model ? { model } : {}),
      runs: number('runs'),
      profile: String(values.profile),
      thinkingShare: number('thinking-share'),
      thinkingBudget: number('thinking-budget'),
      overloadAfterMs: number('overload-after-s') * 1000,
      overloadMs: number('overload-s') * 1000,
      rateLimitAfterMs: number('rate-limit-after-s') * 1000,
      rateLimitMs: number('rate-limit-s') * 1000,
      modelWorkers: number('model-workers'),
      toolWorkers: number('tool-workers'),
      submitIntervalMs: number('submit-interval-s') * 1000,
      timeoutMs: number('timeout-s') * 1000,
      log: (line) => console.error(`[production${model ? ` ${model}` : ''}] ${line}`),
    });
    console.log(`${model === models[0] ? '' : '\n'}${formatProductionResult(result)}`);
    if (!(result.succeeded === result.runs.length && result.abandoned === 0 && result.paidTwice === 0)) exitCode = 1;
  }
  return exitCode;
}
