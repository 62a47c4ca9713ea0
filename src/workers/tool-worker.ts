// The tool worker: takes tool-call jobs; each records exactly one tool_result in the ledger.
import { Worker, type Job } from 'bullmq';
import type { WorkerFleet } from './worker-fleet.js';
import { ConcurrencyGovernor, type ConcurrencyChange } from './concurrency-governor.js';
import { inSpan, SpanKind } from '../telemetry/tracing.js';
import { SPAN_ATTRIBUTES, SPAN_NAMES } from '../telemetry/span-attributes.js';
import { KillSwitch } from '../safety/kill-switch.js';
import { runToolJob, type ToolJobDependencies } from '../tools/run-tool-job.js';
import { connectRedis, workerIdentity } from '../jobs/redis-connection.js';
import { QUEUE_NAMES, toolJobSchema, type ToolJobData } from '../jobs/job-catalog.js';
import { endRunOfFailedJob } from './end-run-of-failed-job.js';

export interface ToolWorkerOptions {
  concurrency?: number;
  writeGuard?: ToolJobDependencies['writeGuard'];
  hooks?: ToolJobDependencies['hooks'];
  /** The fleet's kill switch (default: one over the fleet's Redis and config); false: none. */
  killSwitch?: KillSwitch | false;
  /** Job processing time in ms, for the job duration metric. */
  onJobDone?: (durationMs: number) => void;
  /** Each change the concurrency governor makes (src/workers/concurrency-governor.ts). */
  onConcurrencyChange?: (change: ConcurrencyChange) => void;
}

export function startToolWorker(fleet: WorkerFleet, options: ToolWorkerOptions = {}): Worker<ToolJobData> {
  const killSwitch = options.killSwitch === false ? null : (options.killSwitch ?? KillSwitch.forFleet(fleet, options.hooks));
  const deps: ToolJobDependencies = {
    store: fleet.store,
    config: fleet.config,
    logger: fleet.logger,
    // The tools' base URL is the sites origin: deploy and publish links, and the one origin the
    // fetch tools and the screenshot browser trust. The API's origin is not theirs to reach.
    publicBaseUrl: fleet.sitesBaseUrl,
    ...(options.writeGuard ? { writeGuard: options.writeGuard } : {}),
    ...(options.hooks ? { hooks: options.hooks } : {}),
    ...(killSwitch ? { killSwitch } : {}),
  };
  // BullMQ does not close a connection it was given; the worker's own one closes with it.
  const connection = connectRedis(fleet.config.REDIS_URL);
  const governor = new ConcurrencyGovernor({
    ceiling: options.concurrency ?? fleet.config.BUILDFLEET_TOOL_CONCURRENCY,
    targetDelayMs: fleet.config.BUILDFLEET_WORKER_LOOP_DELAY_TARGET_MS,
    ...(options.onConcurrencyChange ? { onChange: options.onConcurrencyChange } : {}),
  });
  const worker = new Worker<ToolJobData>(
    QUEUE_NAMES.tool,
    async (job: Job<ToolJobData>) => {
      const data = toolJobSchema.parse(job.data);
      const started = performance.now();
      const result = await governor.track(() =>
        inSpan(
          SPAN_NAMES.executeTool(data.name),
          {
            parent: data.trace,
            kind: SpanKind.CONSUMER,
            attributes: {
              [SPAN_ATTRIBUTES.operationName]: 'execute_tool',
              [SPAN_ATTRIBUTES.toolName]: data.name,
              [SPAN_ATTRIBUTES.toolCallId]: data.toolUseId,
              [SPAN_ATTRIBUTES.toolType]: 'function',
              [SPAN_ATTRIBUTES.parseMode]: data.parseMode,
              [SPAN_ATTRIBUTES.runId]: data.runId,
              [SPAN_ATTRIBUTES.turn]: data.turn,
              [SPAN_ATTRIBUTES.jobId]: job.id ?? '',
              [SPAN_ATTRIBUTES.queue]: QUEUE_NAMES.tool,
              [SPAN_ATTRIBUTES.attempt]: job.attemptsMade + 1,
            },
          },
          () => runToolJob(deps, data, { attemptsMade: job.attemptsMade, maxAttempts: job.opts.attempts ?? 1 }),
        ),
      );
      options.onJobDone?.(performance.now() - started);
      return result.kind === 'recorded' ? { is_error: result.result.is_error, cached: result.cached } : { skipped: result.reason };
    },
    {
      connection,
      prefix: fleet.store.keys.queuePrefix,
      // Recorded on each job as processedBy, so a run can be traced to the worker that ran it.
      name: workerIdentity('tool'),
      concurrency: governor.initialConcurrency,
      lockDuration: fleet.config.BUILDFLEET_LOCK_DURATION_MS,
      stalledInterval: fleet.config.BUILDFLEET_STALLED_INTERVAL_MS,
      maxStalledCount: 3,
    },
  );
  worker.on('error', (error) => fleet.logger.error({ err: error.message }, 'tool worker error'));
  // runToolJob turns tool failures into is_error results and its last attempt's infrastructure
  // failure too; a job that still fails for good (its data, Redis, a stalled job) ends its run.
  worker.on('failed', (job, error) => {
    if (!job) return;
    void endRunOfFailedJob({ store: fleet.store, logger: fleet.logger }, { queue: QUEUE_NAMES.tool, job, error }).catch((failure: unknown) =>
      fleet.logger.error({ run_id: job.data.runId, err: failure instanceof Error ? failure.message : String(failure) }, 'run of a failed tool job not ended'),
    );
  });
  governor.attach(worker);
  worker.on('closed', () => governor.stop());
  worker.on('closed', () => void (connection.status === 'ready' ? connection.quit().catch(() => connection.disconnect()) : connection.disconnect()));
  return worker;
}
