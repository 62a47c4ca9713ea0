// Usage by class and cost, through the real fleet: builds on the simulator over HTTP through the
// SDK, real Redis, the real queues and API. What the run, its tenant, the API, the events and the
// metrics say was spent is checked against what the simulator answered (its request log keeps the
// `usage` of every answer) and the price table.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTextRecovery } from '../../src/agent/text-recovery.js';
import { lookupModelPrice } from '../../src/domain/model-prices.js';
import { addUsage, EMPTY_USAGE, totalInputTokens, usageFromApi, USAGE_CLASSES, type ApiUsage, type UsageByClass } from '../../src/domain/usage.js';
import { costMicroUsd, microUsdToUsd } from '../../src/domain/usage-cost.js';
import { newRunId, type RunRecord, spendPeriods } from '../../src/engine/index.js';
import { FleetMetrics } from '../../src/fleet/fleet-metrics.js';
import { jobIds } from '../../src/jobs/job-catalog.js';
import { cancelRun } from '../../src/fleet/run-commands.js';
import { METRICS } from '../../src/telemetry/metric-names.js';
import { startModelWorker } from '../../src/workers/model-worker.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

const MODEL = 'claude-sonnet-4-6';
const PRICE = lookupModelPrice({ model: MODEL, overrides: {} }).price;

let harness: InProcessFleet;
let metrics: FleetMetrics;
let requestsSent = 0;

/** Sets the lifetime of every breakpoint in a request body; returns how many there were. */
function setBreakpointLifetimes(value: unknown, ttl: '5m' | '1h'): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + setBreakpointLifetimes(item, ttl), 0);
  if (typeof value !== 'object' || value === null) return 0;
  let found = 0;
  for (const [key, child] of Object.entries(value)) {
    if (key === 'cache_control' && typeof child === 'object' && child !== null) {
      (child as { ttl?: string }).ttl = ttl;
      found += 1;
    } else found += setBreakpointLifetimes(child, ttl);
  }
  return found;
}

/**
 * The SDK's fetch, making every other request of the fleet write the prompt cache at the 1-hour
 * lifetime (all of its breakpoints, so the API's rule that a 1h breakpoint may not follow a 5m one
 * holds), so the simulator reports writes of both lifetimes. A request without breakpoints gets
 * the API's top-level automatic one (SDK `MessageCreateParams.cache_control`: "automatically
 * applies a cache_control marker to the last cacheable block in the request").
 */
const fetchWithBothCacheLifetimes: typeof fetch = async (input, init) => {
  if (typeof init?.body !== 'string') return fetch(input, init);
  const body = JSON.parse(init.body) as Record<string, unknown>;
  requestsSent += 1;
  const ttl = requestsSent % 2 === 0 ? '1h' : '5m';
  if (setBreakpointLifetimes(body, ttl) === 0) body.cache_control = { type: 'ephemeral', ttl };
  return fetch(input, { ...init, body: JSON.stringify(body) });
};

beforeAll(async () => {
  metrics = new FleetMetrics({ role: 'test', defaultMetrics: false });
  harness = await startInProcessFleet({
    label: 'cost',
    metrics,
    modelWorkers: 0,
    env: { BUILDFLEET_MODEL: MODEL, BUILDFLEET_RETRY_BASE_MS: '200', BUILDFLEET_MODEL_ATTEMPTS: '20' },
  });
  const client = new Anthropic({ apiKey: 'simulator', baseURL: harness.simulator.url, maxRetries: 0, fetch: fetchWithBothCacheLifetimes });
  harness.workers.push(startModelWorker(harness.fleet, { client, recover: createTextRecovery(), hooks: metrics.modelTurnHooks() }));
});
afterAll(async () => harness?.close());

/** What the simulator answered the run: the usage of every answer it completed, by class. */
function answeredUsages(runId: string): UsageByClass[] {
  return harness.simulator.requests
    .filter((request) => request.headers['x-buildfleet-run-id'] === runId && request.status === 200 && !request.abandoned && request.usage)
    .map((request) => usageFromApi(request.usage as ApiUsage));
}

async function build(tenant: string): Promise<RunRecord> {
  const created = await harness.submit({ tenant });
  const run = await harness.waitForRun(created.id);
  expect(run.status).toBe('succeeded');
  return run;
}

async function poll<T>(read: () => Promise<T>, until: (value: T) => boolean, what: string): Promise<T> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    const value = await read();
    if (until(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not happen`);
}

/** The tenant's spend over every UTC day the runs touched (a test run across midnight spans two). */
async function tenantDaySpend(tenant: string, runs: RunRecord[]): Promise<{ costMicroUsd: number; usage: UsageByClass }> {
  const days = new Map<string, Date>();
  for (const at of [...runs.map((run) => new Date(run.createdAt)), new Date()]) days.set(spendPeriods(at).day, at);
  let costMicro = 0;
  let usage: UsageByClass = { ...EMPTY_USAGE };
  for (const at of days.values()) {
    const spend = await harness.fleet.store.tenantSpend(tenant, at);
    costMicro += spend.day.costMicroUsd;
    usage = addUsage(usage, spend.day.usage);
  }
  return { costMicroUsd: costMicro, usage };
}

describe('usage by class and cost of a build', () => {
  it('keeps every usage class the simulator reported, and costs them at the price table', async () => {
    // Tenant `default`: the harness's API key reads its runs.
    const run = await build('default');
    const answers = answeredUsages(run.id);
    expect(answers.length).toBeGreaterThan(5);

    // The run's usage is the sum of its answers, class by class.
    const reported = answers.reduce(addUsage, { ...EMPTY_USAGE });
    expect(run.usage).toEqual(reported);
    // Every class was exercised: uncached input, writes of both lifetimes, reads, output.
    for (const usageClass of USAGE_CLASSES) expect(reported[usageClass], usageClass).toBeGreaterThan(0);

    // Its cost is the price table × each answer's usage, each answer rounded to a micro-dollar.
    expect(run.costMicroUsd).toBe(answers.reduce((sum, usage) => sum + costMicroUsd({ usage, price: PRICE }), 0));
    const unrounded = reported.input_tokens * PRICE.input + reported.cache_write_5m_input_tokens * PRICE.cacheWrite5m + reported.cache_write_1h_input_tokens * PRICE.cacheWrite1h + reported.cache_read_input_tokens * PRICE.cacheRead + reported.output_tokens * PRICE.output;
    expect(Math.abs(run.costMicroUsd - unrounded)).toBeLessThanOrEqual(answers.length / 2);

    // The API shows tokens by class, the cache hit ratio and the cost in dollars.
    const response = await fetch(`${harness.apiUrl}/v1/runs/${run.id}`, { headers: { authorization: `Bearer ${harness.apiKey}` } });
    const view = (await response.json()) as { usage: UsageByClass; cacheHitRatio: number; costUsd: number };
    expect(view.usage).toEqual(reported);
    expect(view.costUsd).toBe(microUsdToUsd(run.costMicroUsd));
    expect(view.cacheHitRatio).toBeCloseTo(reported.cache_read_input_tokens / totalInputTokens(reported), 12);
    expect(view.cacheHitRatio).toBeGreaterThan(0);

    // Each model-call-end event carries its answer's usage by class and cost.
    const responses = (await harness.fleet.store.readEvents(run.id)).filter((event) => event.event === 'model-call-end');
    expect(responses.map((event) => event.usage)).toEqual(answers);
    const eventMicro = responses.reduce((sum, event) => sum + Math.round(Number(event.cost_usd) * 1_000_000), 0);
    expect(eventMicro).toBe(run.costMicroUsd);
  });

  it('adds every run’s cost to its tenant’s day and month, and exposes it as metrics', async () => {
    const tenant = 'cost-two';
    const runs = [await build(tenant), await build(tenant)];
    const spent = runs.reduce((sum, run) => sum + run.costMicroUsd, 0);
    const usage = runs.map((run) => run.usage).reduce(addUsage, { ...EMPTY_USAGE });

    // The tenant's step follows the commit that ended the run: wait for it.
    expect(await poll(() => tenantDaySpend(tenant, runs), (value) => value.costMicroUsd === spent, 'the tenant’s spend')).toEqual({ costMicroUsd: spent, usage });
    const month = (await harness.fleet.store.tenantSpend(tenant)).month;
    expect(month.costMicroUsd).toBe(spent);
    expect(month.costUsd).toBe(microUsdToUsd(spent));
    // Another tenant's spend is its own.
    expect((await harness.fleet.store.tenantSpend('nobody-spent')).day).toEqual({ period: spendPeriods(new Date()).day, costMicroUsd: 0, costUsd: 0, usage: EMPTY_USAGE });

    const cost = (await metrics.registry.getSingleMetric(METRICS.modelCost)!.get()).values.find((value) => value.labels.tenant === tenant && value.labels.model === MODEL);
    expect(cost?.value).toBeCloseTo(microUsdToUsd(spent), 9);
    const tokens = (await metrics.registry.getSingleMetric(METRICS.modelTokens)!.get()).values.filter((value) => value.labels.tenant === tenant);
    for (const usageClass of USAGE_CLASSES) expect(tokens.find((value) => value.labels.class === usageClass)?.value, usageClass).toBe(usage[usageClass]);
  });

  it('charges the tenant for an answer that arrives after its run was cancelled', async () => {
    const tenant = 'cost-cancelled';
    const runId = newRunId();
    harness.simulator.faults.add({ kind: 'slow', runId, delayMs: 1500, count: 1 });
    await harness.submit({ runId, tenant });
    await poll(() => harness.fleet.store.readEvents(runId), (events) => events.some((event) => event.event === 'turn-start'), 'the first call');
    expect(await cancelRun(harness.fleet, (await harness.fleet.store.getRun(runId))!)).toBe(true);
    const ended = await poll(() => harness.fleet.store.getRun(runId), (run) => (run?.costMicroUsd ?? 0) > 0, 'the cost of the late answer');
    expect(ended?.status).toBe('cancelled');
    expect(ended?.costMicroUsd).toBe(costMicroUsd({ usage: answeredUsages(runId)[0]!, price: PRICE }));
    const spend = await poll(() => tenantDaySpend(tenant, [ended!]), (value) => value.costMicroUsd > 0, 'the tenant’s spend');
    expect(spend).toEqual({ costMicroUsd: ended!.costMicroUsd, usage: ended!.usage });
  });

  it('adds a committed answer’s spend to its tenant exactly once, and a damaged tenant counter stops none of its runs', async () => {
    const tenant = 'cost-crash';
    const { day } = spendPeriods(new Date());
    const dayKey = harness.fleet.store.keys.tenantSpend(tenant, `day:${day}`);
    // Deliberately what production never writes: a string where the day's hash goes, so the
    // tenant's step after each commit fails (WRONGTYPE) and the answer's spend stays pending.
    await harness.fleet.redis.set(dayKey, 'not a hash');
    const created = await harness.submit({ tenant });
    // The commit's tenant step fails the attempt; its retry finds the counter damaged, keeps the
    // spend pending on the turn and goes on: the run is not held up by its tenant's counter.
    const firstTurn = await poll(() => harness.fleet.queues.own.model.getJob(jobIds.modelTurn(created.id, 0)), (job) => (job?.attemptsMade ?? 0) > 0, 'a failed attempt');
    expect(firstTurn?.failedReason).toMatch(/WRONGTYPE|not a hash/);
    const run = await harness.waitForRun(created.id, 60_000);
    expect(run.status).toBe('succeeded');
    const turnKeys = Array.from({ length: run.turn }, (_, turn) => harness.fleet.store.keys.turn(run.id, turn));
    const pendingOf = async (key: string) => Object.entries(await harness.fleet.redis.hgetall(key)).filter(([field]) => field.startsWith('tenantSpend:'));
    const pendingBefore = (await Promise.all(turnKeys.map(pendingOf))).flat();
    // One entry per paid answer, each under its own marker.
    expect(pendingBefore.length).toBe(answeredUsages(run.id).length);
    expect(new Set(pendingBefore.map(([field]) => field)).size).toBe(pendingBefore.length);

    // Repaired, each turn's next load adds its spend: nothing lost, nothing twice.
    await harness.fleet.redis.del(dayKey);
    for (let turn = 0; turn < run.turn; turn += 1) await harness.fleet.store.loadTurn(run.id, turn);
    for (const key of turnKeys) expect(await pendingOf(key)).toEqual([]);
    expect(await tenantDaySpend(tenant, [run])).toEqual({ costMicroUsd: run.costMicroUsd, usage: run.usage });

    // An entry whose spend was added already (a worker that died after the tenant's step, before
    // dropping the entry — put back here by hand, as that worker would have left it) adds nothing:
    // the day remembers the answer's marker.
    const [field, raw] = pendingBefore[0]!;
    await harness.fleet.redis.hset(turnKeys[0]!, field, raw);
    await harness.fleet.store.loadTurn(run.id, 0);
    expect(await harness.fleet.redis.hexists(turnKeys[0]!, field)).toBe(0);
    expect((await tenantDaySpend(tenant, [run])).costMicroUsd).toBe(run.costMicroUsd);
  });

  it('charges a call whose stream broke after it started: the run, its events and its tenant count it', async () => {
    const tenant = 'cost-broken-stream';
    const runId = newRunId();
    // One answer breaks mid-stream, after some output: the API bills what it generated.
    harness.simulator.faults.add({ kind: 'stream_error', errorType: 'api_error', runId, count: 1, afterTokens: 40 });
    await harness.submit({ runId, tenant });
    const run = await harness.waitForRun(runId, 60_000);
    expect(run.status).toBe('succeeded');
    const events = await harness.fleet.store.readEvents(runId);
    const broken = events.filter((event) => event.event === 'model-call-fail');
    expect(broken).toHaveLength(1);
    // What the broken call had cost: the input classes of its message_start, the output so far.
    const paid = broken[0]!.usage as UsageByClass;
    const brokenRequest = harness.simulator.requests.find((request) => request.requestId === broken[0]!.request_id);
    const billedInput = usageFromApi(brokenRequest!.usage as ApiUsage);
    for (const usageClass of USAGE_CLASSES.filter((name) => name !== 'output_tokens')) expect(paid[usageClass], usageClass).toBe(billedInput[usageClass]);
    expect(paid.output_tokens).toBeGreaterThan(0);
    const paidMicro = Math.round(Number(broken[0]!.cost_usd) * 1_000_000);
    expect(paidMicro).toBe(costMicroUsd({ usage: paid, price: PRICE }));
    // The run's cost is its answers' and the broken call's; its tenant's day is the same.
    const answersMicro = events.filter((event) => event.event === 'model-call-end').reduce((sum, event) => sum + Math.round(Number(event.cost_usd) * 1_000_000), 0);
    expect(run.costMicroUsd).toBe(answersMicro + paidMicro);
    // The tenant's side of the last answer is added right after the run's end step
    // (RunEngine.commitAnswer), so a reader that saw the run end may be a moment early.
    expect((await poll(() => tenantDaySpend(tenant, [run]), (value) => value.costMicroUsd === run.costMicroUsd, 'the tenant’s spend')).costMicroUsd).toBe(run.costMicroUsd);
  });
});
