// `buildfleet experiment cost`: the same builds — same prompts, same model, same simulator seed —
// run twice on a real in-process fleet (private Redis, the simulator over loopback HTTP through
// the real SDK, real BullMQ workers): first with prompt caching off (BUILDFLEET_PROMPT_CACHING=
// false, no breakpoint sent), then on (src/model/place-cache-breakpoints.ts). Each mode gets a
// fresh fleet and simulator, so the cached mode starts with an empty cache, like a fleet's first
// builds of the day. Tokens and costs are read from the simulator's request log — what the
// provider billed — and priced with the fleet's price table (src/domain/model-prices.ts); the
// runs' own recorded costs are compared with it. It prints a table per mode and the ratio of input
// cost cached / uncached against the issue's target (at most 35%), and for the cached mode where
// the input cost goes (experiment-cost-analysis.ts): first requests, phase changes, same-prefix
// turns, and the misses the design does not plan.
//
// With --model (repeatable, or a comma list) the experiment runs once per model and prints one
// table each. On a model that supports strict tool use a third mode runs: caching on with
// BUILDFLEET_STRICT_TOOLS=false, so the invalid-tool-input rate is measured with and without it.
// Each mode also counts, from the runs' events (experiment-run-tally.ts): builds verified,
// tool_use_rate, json_in_text_rate, recovery_rate and the share of tool calls whose input the
// fleet refused.
//
// The cost does not depend on latency as long as a run's consecutive requests come within the
// cache lifetime (5 minutes; a realistic turn takes well under that), so `--profile fast` — the
// realistic profile's pages at 10x the speed — gives the realistic profile's tokens in a tenth of
// the time. The output names the profile used.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isTerminal } from '../domain/run-outcomes.js';
import { lookupModelPrice, PRICES_READ_ON } from '../domain/model-prices.js';
import { cacheHitRatio, totalInputTokens, type UsageByClass } from '../domain/usage.js';
import { microUsdToUsd } from '../domain/usage-cost.js';
import { startInProcessFleet } from '../dev/in-process-fleet.js';
import { startPrivateRedis, type PrivateRedis } from '../dev/private-redis.js';
import { isTimingProfileName, type TimingProfileName } from '../sim/timing-profile.js';
import { lookupModelCapabilities, parseModelCapabilityOverrides, type ModelCapabilities } from '../domain/model-capabilities.js';
import { billRunRequests, costBreakdown, totalsOf, type BilledRequest, type BreakdownRow, type RequestTotals } from './experiment-cost-analysis.js';
import { newRunTally, tallyRunEvents, type RunTally } from './experiment-run-tally.js';
import { modelListOption } from './model-list-option.js';
import { percent as share } from './experiment-arm-tally.js';

export const COST_TARGET_RATIO = 0.35;
/** The target on a model whose phase changes keep the prefix (src/agent/phase-tools.ts): the
 * third of the cached cost a phase change used to write again is gone. */
export const COST_TARGET_RATIO_WITH_TOOL_CHANGES = 0.25;
export const CACHE_MODES = ['uncached', 'cached', 'no-strict'] as const;
export type CacheMode = (typeof CACHE_MODES)[number];

export interface CostExperimentOptions {
  builds: number;
  /** The runs' model; absent: the fleet's default (BUILDFLEET_MODEL's default). */
  model?: string;
  /** Simulator timing profile: `realistic` (the default), `fast` (realistic pages, 10x speed), `instant` (small pages; tests). */
  profile: TimingProfileName;
  seed: number;
  /** How many builds run at once within a mode. */
  concurrency: number;
  /** Bound of each mode: a build not ended by then counts as unfinished. */
  timeoutMs: number;
  /** Redis to use; absent: a private redis-server on loopback. */
  redisUrl?: string;
  /** Key prefix, the mode appended (each mode's keys are deleted when it ends); default per process. */
  prefix?: string;
  /** BUILDFLEET_MODEL_PRICES for the fleets (the operator's price corrections). */
  modelPrices?: string;
  /** BUILDFLEET_MODEL_CAPABILITIES for the fleets. */
  modelCapabilities?: string;
  /** A simulator scenario for every build (`x-buildfleet-scenario`): `invalid_tool_input` makes
   * each build's first tool call lose a field, which strict tool use must prevent. */
  scenario?: string;
  /** BUILDFLEET_PHASE_TOOL_CHANGES for the fleets (default true): false measures a model that
   * supports tool changes with the tier per request, for comparison. */
  phaseToolChanges?: boolean;
  log?: (line: string) => void;
}

export interface CostModeResult {
  mode: CacheMode;
  model: string;
  builds: number;
  succeeded: number;
  /** Ended otherwise, by status or error code; unfinished when the bound passed. */
  notSucceeded: Record<string, number>;
  /** Model calls the simulator answered 200 (one per turn attempt). */
  turns: number;
  /** Calls answered otherwise (should be none: no fault is injected). */
  otherAnswers: number;
  totals: RequestTotals;
  /** Where the input cost goes: first requests, each phase transition, same-prefix turns. */
  breakdown: BreakdownRow[];
  /** The input cost had no phase change invalidated the prefix (an estimate from the log). */
  keptPrefixInputMicroUsd: number;
  /** Same-prefix requests that read less than their predecessor cached, and the tokens they wrote. */
  missedRequests: number;
  /** Requests with breakpoints that neither read nor wrote (prefix under the minimum cacheable length). */
  belowMinimumRequests: number;
  /** What the runs recorded themselves (run.costMicroUsd summed): equal to totals.totalMicroUsd when
   * the fleet's accounting matches the provider's log. */
  recordedMicroUsd: number;
  wallMs: number;
  /** Every answered request, for --json and for reading a miss. */
  requests: BilledRequest[];
  /** The runs' rates, from their events. */
  tally: RunTally;
}

export interface CostExperimentResult {
  profile: TimingProfileName;
  seed: number;
  scenario: string | null;
  uncached: CostModeResult;
  cached: CostModeResult;
  /** Caching on without strict tools: only on a model that supports them. */
  strictOff: CostModeResult | null;
  /** Input USD cached / uncached (the same builds, so per build = in total). */
  inputCostRatio: number;
  targetRatio: number;
  targetMet: boolean;
}

/** The prompts of the builds: the same list in both modes. */
export function buildPrompts(builds: number): string[] {
  return Array.from({ length: builds }, (_, index) => `Build a landing page for Harbor Bakery number ${index + 1}, with an about page.`);
}

async function runMode(options: CostExperimentOptions & { redisUrl: string }, mode: CacheMode): Promise<CostModeResult> {
  const log = options.log ?? (() => undefined);
  const fleet = await startInProcessFleet({
    redisUrl: options.redisUrl,
    prefix: `${options.prefix ?? `experiment-cost-${process.pid}`}-${mode}`,
    modelWorkers: 2,
    toolWorkers: 2,
    env: {
      BUILDFLEET_PROMPT_CACHING: mode === 'uncached' ? 'false' : 'true',
      BUILDFLEET_STRICT_TOOLS: mode === 'no-strict' ? 'false' : 'true',
      BUILDFLEET_PHASE_TOOL_CHANGES: options.phaseToolChanges === false ? 'false' : 'true',
      ...(options.modelPrices ? { BUILDFLEET_MODEL_PRICES: options.modelPrices } : {}),
      ...(options.modelCapabilities ? { BUILDFLEET_MODEL_CAPABILITIES: options.modelCapabilities } : {}),
      ...(options.model ? { BUILDFLEET_MODEL: options.model } : {}),
    },
    // The log keeps every request of the mode: a build is at most a few dozen calls.
    simulator: { seed: options.seed, profile: options.profile, maxRecordedRequests: Math.max(1000, options.builds * 200) },
  });
  const started = Date.now();
  try {
    const model = fleet.config.BUILDFLEET_MODEL;
    const prompts = buildPrompts(options.builds);
    const runIds: string[] = [];
    const ends = new Map<string, { status: string; errorCode: string | null; costMicroUsd: number }>();
    const deadline = started + options.timeoutMs;
    let next = 0;
    const lane = async () => {
      while (next < prompts.length && Date.now() < deadline) {
        const prompt = prompts[next]!;
        next += 1;
        const created = await fleet.submit({ prompt, model, ...(options.scenario ? { options: { scenario: options.scenario } } : {}) });
        runIds.push(created.id);
        for (;;) {
          const run = await fleet.fleet.store.getRun(created.id);
          if (run && (isTerminal(run.status) || run.status === 'waiting_for_input')) {
            ends.set(created.id, { status: run.status, errorCode: run.error?.code ?? null, costMicroUsd: run.costMicroUsd });
            log(
              `${mode}: ${created.id} ${run.status}${run.error ? ` (${run.error.code})` : ''} ` +
                `after ${run.turn} turns, ${Math.round((Date.now() - started) / 1000)} s into the mode`,
            );
            break;
          }
          if (Date.now() > deadline) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.concurrency, prompts.length) }, lane));
    const wallMs = Date.now() - started;
    // Priced per answer, as the fleet prices it: a banded price depends on the prompt's length.
    const price = (usage: UsageByClass) =>
      lookupModelPrice({ model, overrides: fleet.config.BUILDFLEET_MODEL_PRICES, promptTokens: totalInputTokens(usage) }).price;
    const requests: BilledRequest[] = [];
    const tally = newRunTally();
    for (const runId of runIds) {
      const events = await fleet.fleet.store.readEvents(runId, '-', 10_000);
      // One turn-start per turn attempt says the phase each call was made in.
      const phases = events.filter((event) => event.event === 'turn-start').map((event) => String(event.phase));
      requests.push(...billRunRequests({ requests: fleet.simulator.requests, runId, price, phases }));
      tallyRunEvents(tally, await fleet.fleet.store.getRun(runId), events);
    }
    const runIdSet = new Set(runIds);
    const otherAnswers = fleet.simulator.requests.filter(
      (request) => request.path === '/v1/messages' && runIdSet.has(request.headers['x-buildfleet-run-id'] ?? '') && request.status !== 200,
    ).length;
    const notSucceeded: Record<string, number> = {};
    for (const runId of runIds) {
      const end = ends.get(runId);
      if (end?.status === 'succeeded') continue;
      const key = end ? (end.errorCode ?? end.status) : 'unfinished';
      notSucceeded[key] = (notSucceeded[key] ?? 0) + 1;
    }
    const unsubmitted = prompts.length - runIds.length;
    if (unsubmitted > 0) notSucceeded.unsubmitted = unsubmitted;
    return {
      mode,
      model,
      builds: prompts.length,
      succeeded: [...ends.values()].filter((end) => end.status === 'succeeded').length,
      notSucceeded,
      turns: requests.length,
      otherAnswers,
      totals: totalsOf(requests),
      breakdown: costBreakdown(requests),
      keptPrefixInputMicroUsd: requests.reduce((sum, request) => sum + request.keptPrefixInputMicroUsd, 0),
      missedRequests: requests.filter((request) => request.missed).length,
      belowMinimumRequests: requests.filter((request) => request.belowMinimum).length,
      recordedMicroUsd: [...ends.values()].reduce((sum, end) => sum + end.costMicroUsd, 0),
      wallMs,
      requests,
      tally,
    };
  } finally {
    await fleet.close();
  }
}

/** Runs the builds uncached, then cached; returns both and the ratio of their input costs. */
export async function runCostExperiment(options: CostExperimentOptions): Promise<CostExperimentResult> {
  let redis: PrivateRedis | null = null;
  const dataDir = mkdtempSync(join(tmpdir(), 'buildfleet-experiment-cost-'));
  try {
    const redisUrl = options.redisUrl ?? (redis = await startPrivateRedis({ dataDir })).url;
    const uncached = await runMode({ ...options, redisUrl }, 'uncached');
    const cached = await runMode({ ...options, redisUrl }, 'cached');
    const capabilities = capabilitiesOf(cached.model, options.modelCapabilities);
    const strictOff = capabilities.strictTools ? await runMode({ ...options, redisUrl }, 'no-strict') : null;
    const inputCostRatio = uncached.totals.inputMicroUsd === 0 ? Number.NaN : cached.totals.inputMicroUsd / uncached.totals.inputMicroUsd;
    const keepsPrefix = options.phaseToolChanges !== false && capabilities.midConversationSystemMessages && capabilities.midConversationToolChanges;
    const targetRatio = keepsPrefix ? COST_TARGET_RATIO_WITH_TOOL_CHANGES : COST_TARGET_RATIO;
    return {
      profile: options.profile,
      seed: options.seed,
      scenario: options.scenario ?? null,
      uncached,
      cached,
      strictOff,
      inputCostRatio,
      targetRatio,
      targetMet: inputCostRatio <= targetRatio,
    };
  } finally {
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function capabilitiesOf(model: string, modelCapabilities: string | undefined): ModelCapabilities {
  return lookupModelCapabilities({ model, overrides: parseModelCapabilityOverrides(modelCapabilities ?? '') }).capabilities;
}

const dollars = (microUsd: number) => `$${microUsdToUsd(microUsd).toFixed(4)}`;
const percent = (ratio: number | null) => (ratio === null || Number.isNaN(ratio) ? '—' : `${(ratio * 100).toFixed(1)}%`);
const perBuild = (value: number, builds: number) => (builds === 0 ? 0 : value / builds);
const writes = (usage: UsageByClass) => usage.cache_write_5m_input_tokens + usage.cache_write_1h_input_tokens;

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(rows[0]!), line(widths.map((width) => '-'.repeat(width))), ...rows.slice(1).map(line)].join('\n');
}

function buildsCell(mode: CostModeResult): string {
  const others = Object.entries(mode.notSucceeded).map(([code, count]) => `${code} ${count}`);
  return `${mode.succeeded}/${mode.builds} ok${others.length > 0 ? ` (${others.join(', ')})` : ''}`;
}

/** The two modes side by side, then the ratio against the target and the cached mode's breakdown. */
export function formatCostResult(result: CostExperimentResult): string {
  const { uncached, cached } = result;
  const modes = [uncached, cached, ...(result.strictOff ? [result.strictOff] : [])];
  const tokens = (pick: (usage: UsageByClass) => number) => modes.map((mode) => String(Math.round(perBuild(pick(mode.totals.usage), mode.builds))));
  const rows: string[][] = [
    ['per build (mean)', 'caching off', 'caching on', ...(result.strictOff ? ['caching on, strict off'] : [])],
    ['builds', ...modes.map(buildsCell)],
    ['builds verified', ...modes.map((mode) => `${mode.tally.verifiedFinishes}/${mode.tally.runs}`)],
    ['turns (model calls)', ...modes.map((mode) => perBuild(mode.turns, mode.builds).toFixed(1))],
    ['tool_use_rate', ...modes.map((mode) => share(mode.tally.toolUseTurns, mode.tally.turnsExpectingTool))],
    ['json_in_text_rate', ...modes.map((mode) => share(mode.tally.jsonInTextTurns, mode.tally.turnsExpectingTool))],
    ['recovery_rate', ...modes.map((mode) => share(mode.tally.recoveredTurns, mode.tally.turnsExpectingTool))],
    [
      'invalid tool input (calls)',
      ...modes.map((mode) => `${share(mode.tally.invalidInputCalls, mode.tally.toolCalls)} (${mode.tally.invalidInputCalls}/${mode.tally.toolCalls})`),
    ],
    ['input tokens: uncached', ...tokens((usage) => usage.input_tokens)],
    ['input tokens: cache write 5m', ...tokens((usage) => usage.cache_write_5m_input_tokens)],
    ['input tokens: cache write 1h', ...tokens((usage) => usage.cache_write_1h_input_tokens)],
    ['input tokens: cache read', ...tokens((usage) => usage.cache_read_input_tokens)],
    ['output tokens', ...tokens((usage) => usage.output_tokens)],
    ['cache hit ratio', ...modes.map((mode) => percent(cacheHitRatio(mode.totals.usage)))],
    ['input USD', ...modes.map((mode) => dollars(perBuild(mode.totals.inputMicroUsd, mode.builds)))],
    ['total USD (input + output)', ...modes.map((mode) => dollars(perBuild(mode.totals.totalMicroUsd, mode.builds)))],
    ['wall time of the mode', ...modes.map((mode) => `${(mode.wallMs / 1000).toFixed(1)} s`)],
  ];
  const phaseChanges =
    cached.requests.length > 0 && result.targetRatio === COST_TARGET_RATIO_WITH_TOOL_CHANGES
      ? 'as system messages with tool changes (tools declared once)'
      : 'as a new tools tier per request';
  const profileNote =
    result.profile === 'realistic'
      ? ''
      : result.profile === 'fast'
        ? " (the realistic profile's pages at 10x its speed: the tokens are the realistic profile's)"
        : ' (small pages: not the realistic profile)';
  const lines = [
    `model ${cached.model}${result.scenario ? `, scenario ${result.scenario}` : ''}, phase changes ${phaseChanges}, ` +
      `simulator profile ${result.profile}${profileNote}, seed ${result.seed}, prices of ${PRICES_READ_ON}`,
    '',
    table(rows),
    '',
    `input USD cached / uncached: ${dollars(perBuild(cached.totals.inputMicroUsd, cached.builds))} / ` +
      `${dollars(perBuild(uncached.totals.inputMicroUsd, uncached.builds))} per build = ` +
      `${percent(result.inputCostRatio)} (target at most ${percent(result.targetRatio)}: ${result.targetMet ? 'met' : 'NOT met'})`,
    `total USD cached / uncached: ${percent(uncached.totals.totalMicroUsd === 0 ? null : cached.totals.totalMicroUsd / uncached.totals.totalMicroUsd)}`,
  ];
  const mismatched = modes.filter((mode) => mode.recordedMicroUsd !== mode.totals.totalMicroUsd);
  lines.push(
    mismatched.length === 0
      ? "the runs' recorded costs equal the provider log's"
      : `the runs' recorded costs differ from the provider log's: ` +
          `${mismatched.map((mode) => `${mode.mode} ${dollars(mode.recordedMicroUsd)} recorded vs ${dollars(mode.totals.totalMicroUsd)} billed`).join('; ')}`,
  );
  if (modes.some((mode) => mode.otherAnswers > 0)) lines.push(`answers other than 200: ${modes.map((mode) => `${mode.mode} ${mode.otherAnswers}`).join(', ')}`);
  lines.push(
    '',
    `caching on, where the input cost goes (${cached.builds === 1 ? '1 build' : `all ${cached.builds} builds`}):`,
    formatBreakdown(cached, uncached.totals.inputMicroUsd),
  );
  lines.push(
    `same-prefix requests that read less than their predecessor cached: ${cached.missedRequests}; ` +
      `requests whose prefixes were all under the minimum cacheable length: ${cached.belowMinimumRequests}`,
  );
  lines.push(
    `had no phase change invalidated the prefix (estimate: what a phase's first request wrote of its ` +
      `predecessor's prefix billed as a read), input USD cached / uncached would be ` +
      `${percent(uncached.totals.inputMicroUsd === 0 ? null : cached.keptPrefixInputMicroUsd / uncached.totals.inputMicroUsd)}`,
  );
  return lines.join('\n');
}

const KIND_LABELS: Record<string, string> = {
  first: "run's first request",
  'same-prefix': 'same prefix as the previous request',
};

function formatBreakdown(mode: CostModeResult, uncachedInputMicroUsd: number): string {
  const rows: string[][] = [['requests', 'count', 'uncached', 'written', 'read', 'input USD', 'share', 'had it kept the prefix: USD, ratio']];
  for (const row of mode.breakdown) {
    // The whole cached input cost with only this row's requests priced as if they kept the prefix.
    const ratioIfKept =
      uncachedInputMicroUsd === 0 ? null : (mode.totals.inputMicroUsd - row.totals.inputMicroUsd + row.keptPrefixInputMicroUsd) / uncachedInputMicroUsd;
    rows.push([
      KIND_LABELS[row.label] ?? row.label,
      String(row.totals.requests),
      String(row.totals.usage.input_tokens),
      String(writes(row.totals.usage)),
      String(row.totals.usage.cache_read_input_tokens),
      dollars(row.totals.inputMicroUsd),
      percent(mode.totals.inputMicroUsd === 0 ? null : row.totals.inputMicroUsd / mode.totals.inputMicroUsd),
      row.kind === 'prefix-change' ? `${dollars(row.keptPrefixInputMicroUsd)}, ${percent(ratioIfKept)}` : '',
    ]);
  }
  return table(rows);
}

/** The result without the per-request rows unless asked: --json prints it. */
function jsonOf(result: CostExperimentResult, withRequests: boolean): unknown {
  const mode = ({ requests, ...rest }: CostModeResult) => ({
    ...rest,
    cacheHitRatio: cacheHitRatio(rest.totals.usage),
    perBuild: {
      inputUsd: microUsdToUsd(perBuild(rest.totals.inputMicroUsd, rest.builds)),
      totalUsd: microUsdToUsd(perBuild(rest.totals.totalMicroUsd, rest.builds)),
    },
    ...(withRequests ? { requests } : {}),
  });
  return { ...result, uncached: mode(result.uncached), cached: mode(result.cached), strictOff: result.strictOff ? mode(result.strictOff) : null };
}

export async function runCostExperimentCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      builds: { type: 'string', default: '3' },
      model: { type: 'string', multiple: true },
      profile: { type: 'string', default: 'realistic' },
      seed: { type: 'string', default: '1' },
      concurrency: { type: 'string' },
      'timeout-s': { type: 'string', default: '900' },
      json: { type: 'boolean', default: false },
      requests: { type: 'boolean', default: false },
      'phase-tool-changes': { type: 'string', default: 'true' },
      scenario: { type: 'string' },
    },
  });
  const whole = (name: string, value: string | undefined, min: number, max: number) => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) throw new Error(`--${name} must be a whole number from ${min} to ${max}`);
    return parsed;
  };
  const builds = whole('builds', values.builds, 1, 50);
  if (values['phase-tool-changes'] !== 'true' && values['phase-tool-changes'] !== 'false') throw new Error('--phase-tool-changes must be true or false');
  if (!isTimingProfileName(values.profile!)) throw new Error('--profile must be realistic, fast or instant');
  const models = modelListOption(values.model);
  let exitCode = 0;
  const results: unknown[] = [];
  for (const model of models) {
    const result = await runCostExperiment({
      builds,
      ...(model ? { model } : {}),
      profile: values.profile,
      seed: whole('seed', values.seed, 0, 2 ** 31 - 1),
      concurrency: values.concurrency === undefined ? builds : whole('concurrency', values.concurrency, 1, 50),
      timeoutMs: whole('timeout-s', values['timeout-s'], 10, 3600) * 1000,
      ...(process.env.REDIS_URL ? { redisUrl: process.env.REDIS_URL } : {}),
      ...(process.env.BUILDFLEET_MODEL_PRICES ? { modelPrices: process.env.BUILDFLEET_MODEL_PRICES } : {}),
      ...(process.env.BUILDFLEET_MODEL_CAPABILITIES ? { modelCapabilities: process.env.BUILDFLEET_MODEL_CAPABILITIES } : {}),
      phaseToolChanges: values['phase-tool-changes'] === 'true',
      ...(values.scenario ? { scenario: values.scenario } : {}),
      log: (line) => console.error(`[cost${model ? ` ${model}` : ''}] ${line}`),
    });
    if (values.json) results.push(jsonOf(result, values.requests));
    else console.log(`${model === models[0] ? '' : '\n'}${formatCostResult(result)}`);
    const modes = [result.uncached, result.cached, ...(result.strictOff ? [result.strictOff] : [])];
    const allSucceeded = modes.every((mode) => mode.succeeded === mode.builds);
    // What the runs recorded must be what the provider billed: a difference is an accounting bug.
    const recordedAsBilled = modes.every((mode) => mode.recordedMicroUsd === mode.totals.totalMicroUsd);
    if (!(allSucceeded && result.targetMet && recordedAsBilled)) exitCode = 1;
  }
  if (values.json) console.log(JSON.stringify(models.length === 1 ? results[0] : results, null, 2));
  return exitCode;
}
