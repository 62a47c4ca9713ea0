// Section 7: many concurrent runs at 1–3 s model latency on ONE model and ONE tool worker process
// (issue #17: "10,000 concurrent runs finish on one model + one tool process with ≤ 64 KB per
// in-flight run and event-loop delay p99 ≤ 50 ms"). The simulator and the API are processes of
// their own (the dev fleet, src/cli/dev-fleet.ts); runs go in through POST /v1/runs.
//
// Memory: each worker's RSS after a warm-up run (baseline), then VmHWM reset to it and read at the
// end (peak), divided by the most runs seen in flight at once. Event-loop delay: each worker's
// /metrics, scraped once to open the window and then every few seconds (scrape-loop-lag.ts).
import { randomBytes } from 'node:crypto';
import { startDevFleet, type DevFleet } from '../src/cli/dev-fleet.js';
import { createFleetRestClient, isSettled } from './fleet-rest-client.js';
import { inFlight, readRunOutcomes, submitRuns, waitUntilQueuesDrain, type FollowedRuns, type RunOutcomes, type SubmittedRuns } from './follow-runs.js';
import { processPeakRssKb, processRssKb, resetPeakRss } from './process-stats.js';
import { cpuByRole, metricsUrlOf, rolesOf, type RoleKind } from './role-processes.js';
import { scrapeLoopLag, summarizeLoopLag, windowDelay, type LoopLagScrape, type LoopLagSummary, type WindowDelay } from './scrape-loop-lag.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface WorkerProcessFigures {
  pid: number | null;
  baselineRssMb: number;
  peakRssMb: number;
  /** (peak − baseline) / most runs in flight at once. */
  kbPerInFlightRun: number;
  /** True when VmHWM could be reset after the warm-up; otherwise the peak is the largest sampled VmRSS. */
  peakFromHwm: boolean;
  loopDelay: LoopLagSummary & { metricsUrl: string | null; window: WindowDelay | null };
  cpuMsPerTurn: number;
}

export interface ConcurrentRunsFigures extends RunOutcomes {
  runsRequested: number;
  runsSubmitted: number;
  submitFailures: number;
  firstSubmitError: string | null;
  peakInFlight: number;
  submitSeconds: number;
  seconds: number;
  capHit: boolean;
  turnsPerSecond: number;
  model: WorkerProcessFigures;
  tool: WorkerProcessFigures;
  /** model + tool */
  kbPerInFlightRunTotal: number;
  worstLoopDelayP99Ms: number | null;
  /** The p99 of the whole window (buildfleet_event_loop_delay_seconds), the worse of the two workers. */
  windowLoopDelayP99Ms: number | null;
  cpuMsPerTurn: Record<RoleKind, number> & { fleet: number };
  modelConcurrency: number;
  toolConcurrency: number;
}

export async function concurrentRunsInProcesses({
  redisUrl,
  runCount,
  toolConcurrency,
  windowMs,
  submitBatchSize,
  env,
  log, cliEntry, modelConcurrency }: {
  redisUrl: string;
  runCount: number;
  toolConcurrency: number;
  /** From the first submit until figures are taken, whatever is still in flight. */
  windowMs: number;
  submitBatchSize: number;
  env: Record<string, string>;
  log: (line: string) => void;
  /** The compiled CLI the roles run from (as the image does); undefined: through tsx. */
  cliEntry?: string | undefined;
  /** The model worker's concurrency (default: every run at once). */
  modelConcurrency?: number | undefined;
}): Promise<ConcurrentRunsFigures> {
  const fleet: DevFleet = await startDevFleet({
    env: {
      ...env,
      REDIS_URL: redisUrl,
      BUILDFLEET_AUTH: 'disabled',
      BUILDFLEET_PREFIX: `bfbench10k${randomBytes(3).toString('hex')}`,
      // The workers announce their /metrics address in their info-level start line.
      LOG_LEVEL: 'info',
      BUILDFLEET_MODEL_CONCURRENCY: String(modelConcurrency ?? runCount),
      BUILDFLEET_TOOL_CONCURRENCY: String(toolConcurrency),
      // The concurrencies above are ceilings; each worker governs its own under them by its loop
      // delay (src/workers/concurrency-governor.ts) unless BENCH_LOOP_DELAY_TARGET_MS says otherwise.
      ...(process.env.BENCH_LOOP_DELAY_TARGET_MS !== undefined ? { BUILDFLEET_WORKER_LOOP_DELAY_TARGET_MS: process.env.BENCH_LOOP_DELAY_TARGET_MS } : {}),
    },
    ...(cliEntry ? { cliEntry } : {}),
    modelWorkers: 1,
    toolWorkers: 1,
    // `buildfleet sim --latency-ms MIN-MAX` (src/sim/main.ts): uniform extra latency per answer.
    simulatorArgs: ['--latency-ms', '1000-3000'],
    writeStateFile: false,
  });
  try {
    const rest = createFleetRestClient({ baseUrl: fleet.apiUrl, apiKey: fleet.apiKey });
    const [modelRole] = rolesOf(fleet, 'model');
    const [toolRole] = rolesOf(fleet, 'tool');
    if (!modelRole || !toolRole) throw new Error('the dev fleet started no model or no tool worker');
    const workers = { model: modelRole, tool: toolRole };
    const metricsUrls = { model: await metricsUrlOf(modelRole), tool: await metricsUrlOf(toolRole) };

    // Warm-up: one run end to end (JIT, connections, scripts loaded), then a quiet second.
    const warmUp = await rest.submitRun({ prompt: 'Build a small bakery website.' });
    const warmUpDeadline = Date.now() + 60_000;
    while (!isSettled((await rest.getRun(warmUp)).status)) {
      if (Date.now() > warmUpDeadline) throw new Error('the warm-up run did not settle in 60 s');
      await sleep(200);
    }
    await sleep(1000);

    const baselineKb = { model: processRssKb(modelRole.child.pid), tool: processRssKb(toolRole.child.pid) };
    const hwmReset = { model: resetPeakRss(modelRole.child.pid), tool: resetPeakRss(toolRole.child.pid) };
    const sampledPeakKb = { ...baselineKb };
    const scrapes: Record<'model' | 'tool', LoopLagScrape[]> = { model: [], tool: [] };
    const openingScrapes: Partial<Record<'model' | 'tool', LoopLagScrape>> = {};
    let scrapeErrors = 0;
    const scrape = async (kind: 'model' | 'tool', keep: boolean) => {
      const url = metricsUrls[kind];
      if (!url) return;
      try {
        const sample = await scrapeLoopLag({ metricsUrl: url });
        if (keep) scrapes[kind].push(sample);
        else openingScrapes[kind] = sample;
      } catch {
        scrapeErrors += 1;
      }
    };
    // Opens the loop-delay window: prom-client resets its histogram on each collect.
    await Promise.all([scrape('model', false), scrape('tool', false)]);
    const cpuBefore = cpuByRole(fleet);

    let peakInFlight = 0;
    let submittedSoFar = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const kind of ['model', 'tool'] as const) {
          sampledPeakKb[kind] = Math.max(sampledPeakKb[kind], processRssKb(workers[kind].child.pid));
        }
        await Promise.all([
          scrape('model', true),
          scrape('tool', true),
          rest
            .queueCounts()
            .then((counts) => {
              peakInFlight = Math.max(peakInFlight, inFlight({ counts, submitted: submittedSoFar }).runs);
            })
            .catch(() => undefined),
        ]);
        await sleep(2000);
      }
    })();

    const started = performance.now();
    const deadline = Date.now() + windowMs;
    let submitted: SubmittedRuns;
    let followed: FollowedRuns;
    let submitSeconds: number;
    try {
      log(`   submitting ${runCount} runs in batches of ${submitBatchSize}`);
      submitted = await submitRuns({
        rest,
        count: runCount,
        batchSize: submitBatchSize,
        deadline,
        onBatch: (count) => {
          submittedSoFar = count;
        },
      });
      submitSeconds = (performance.now() - started) / 1000;
      log(`   ${submitted.ids.length} submitted in ${submitSeconds.toFixed(1)} s; waiting (cap ${(windowMs / 1000).toFixed(0)} s from the first submit)`);
      followed = await waitUntilQueuesDrain({ rest, deadline, intervalMs: 1000, submitted: submitted.ids.length });
    } finally {
      sampling = false;
      await sampler;
    }
    const cpuAfter = cpuByRole(fleet);
    const peakKb = {
      model: hwmReset.model ? Math.max(processPeakRssKb(modelRole.child.pid), sampledPeakKb.model) : sampledPeakKb.model,
      tool: hwmReset.tool ? Math.max(processPeakRssKb(toolRole.child.pid), sampledPeakKb.tool) : sampledPeakKb.tool,
    };
    const seconds = (followed.endedAt - started) / 1000;
    peakInFlight = Math.max(peakInFlight, followed.peakInFlight);
    const outcomes = await readRunOutcomes({ rest, ids: submitted.ids });
    const turns = outcomes.turns;
    const cpuMs = (kind: RoleKind) => ((cpuAfter[kind] - cpuBefore[kind]) * 1000) / Math.max(1, turns);
    const perProcess = (kind: 'model' | 'tool'): WorkerProcessFigures => ({
      pid: workers[kind].child.pid ?? null,
      baselineRssMb: baselineKb[kind] / 1024,
      peakRssMb: peakKb[kind] / 1024,
      kbPerInFlightRun: (peakKb[kind] - baselineKb[kind]) / Math.max(1, peakInFlight),
      peakFromHwm: hwmReset[kind],
      loopDelay: { ...summarizeLoopLag(scrapes[kind]), metricsUrl: metricsUrls[kind], window: windowDelay(openingScrapes[kind], scrapes[kind].at(-1)) },
      cpuMsPerTurn: cpuMs(kind),
    });
    const model = perProcess('model');
    const tool = perProcess('tool');
    if (scrapeErrors > 0) log(`   ${scrapeErrors} /metrics scrapes failed`);
    const p99s = [model.loopDelay.worstP99Ms, tool.loopDelay.worstP99Ms].filter((value): value is number => value !== null);
    return {
      ...outcomes,
      runsRequested: runCount,
      runsSubmitted: submitted.ids.length,
      submitFailures: submitted.failures,
      firstSubmitError: submitted.firstError,
      peakInFlight,
      submitSeconds,
      seconds,
      capHit: followed.timedOut || submitted.ids.length + submitted.failures < runCount,
      turnsPerSecond: turns / Math.max(1e-9, seconds),
      model,
      tool,
      kbPerInFlightRunTotal: model.kbPerInFlightRun + tool.kbPerInFlightRun,
      worstLoopDelayP99Ms: p99s.length === 0 ? null : Math.max(...p99s),
      windowLoopDelayP99Ms: worseOf(model.loopDelay.window?.p99Ms ?? null, tool.loopDelay.window?.p99Ms ?? null),
      cpuMsPerTurn: {
        model: cpuMs('model'),
        tool: cpuMs('tool'),
        api: cpuMs('api'),
        simulator: cpuMs('simulator'),
        fleet: cpuMs('model') + cpuMs('tool') + cpuMs('api'),
      },
      modelConcurrency: modelConcurrency ?? runCount,
      toolConcurrency,
    };
  } finally {
    await fleet.stop();
  }
}

function worseOf(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  return b === null ? a : Math.max(a, b);
}
