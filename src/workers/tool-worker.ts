// The tool worker: takes tool-call jobs; each records exactly one tool_result in the ledger.
import { Worker, type Job } from 'bullmq';
import { SpanStatusCode } from '@opentelemetry/api';
import { shardRole, type WorkerFleet } from './worker-fleet.js';
import { claimDurabilityOf } from '../engine/index.js';
import { ConcurrencyGovernor, type ConcurrencyChange } from './concurrency-governor.js';
import { inSpan, SpanKind } from '../telemetry/tracing.js';
import { SPAN_ATTRIBUTES, SPAN_NAMES } from '../telemetry/span-attributes.js';
import { KillSwitch } from '../safety/kill-switch.js';
import { runToolJob, type ToolJobDependencies, type ToolJobResult } from '../tools/run-tool-job.js';
import { returnToolJobToQueue } from './return-tool-job-to-queue.js';
import { redisTargetOf } from '../domain/redis-target.js';
import { connectRedis, workerIdentity } from '../redis/redis-connection.js';
import { QUEUE_NAMES, toolJobSchema, type ToolJobData } from '../jobs/job-catalog.js';
import { isFinalFailure } from './end-run-of-failed-job.js';

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
  const connection = connectRedis(redisTargetOf(fleet.config));
  const governor = new ConcurrencyGovernor({
    ceiling: options.concurrency ?? fleet.config.BUILDFLEET_TOOL_CONCURRENCY,
    targetDelayMs: fleet.config.BUILDFLEET_WORKER_LOOP_DELAY_TARGET_MS,
    ...(options.onConcurrencyChange ? { onChange: options.onConcurrencyChange } : {}),
  });
  const durability = claimDurabilityOf(fleet.config);

  const runJob = async (job: Job<ToolJobData>, data: ToolJobData, started: number, token: string | undefined): Promise<ToolJobResult> => {
    const attempt = { attemptsMade: job.attemptsMade, maxAttempts: job.opts.attempts ?? 1, createdAtMs: job.timestamp, mayDelay: Boolean(token) };
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
        async (span) => {
          const ran = await runToolJob(deps, data, attempt);
          // An attempt that goes back to the queue failed, for the trace.
          if (ran.kind === 'retry' || ran.kind === 'defer') {
            const error = ran.error instanceof Error ? ran.error : new Error(String(ran.error));
            span.recordException(error);
            span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
          }
          return ran;
        },
      ),
    );
    if (result.kind === 'retry' || result.kind === 'defer') return result;
    // A write tool's result is on a replica before its job completes, when configured
    // (BUILDFLEET_REDIS_WAIT_REPLICAS; RunEngine.confirmToolResultDurable says why). A result an
    // earlier attempt recorded is confirmed whatever its tool: this attempt did not see its effect.
    if (result.kind === 'recorded' && (result.writes ?? true)) await fleet.store.confirmToolResultDurable(data.runId, data.toolUseId, durability);
    options.onJobDone?.(performance.now() - started);
    return result;
  };
  const worker = new Worker<ToolJobData>(
    QUEUE_NAMES.tool,
    async (job: Job<ToolJobData>, token?: string) => {
      const data = toolJobSchema.parse(job.data);
      const started = performance.now();
      let result: ToolJobResult;
      try {
        result = await runJob(job, data, started, token);
      } catch (error) {
        // Thrown around the tool (Redis, a write tool's result not on a replica yet).
        return returnToolJobToQueue({ job, data, token, ending: { kind: 'thrown', error }, logger: fleet.logger });
      }
      if (result.kind === 'retry' || result.kind === 'defer') return returnToolJobToQueue({ job, data, token, ending: result, logger: fleet.logger });
      return result.kind === 'recorded' ? { is_error: result.result.is_error, cached: result.cached } : { skipped: result.reason };
    },
    {
      connection,
      prefix: fleet.queues.own.keys.queuePrefix,
      // Recorded on each job as processedBy, so a run can be traced to the worker that ran it.
      name: workerIdentity(shardRole(fleet, 'tool')),
      concurrency: governor.initialConcurrency,
      lockDuration: fleet.config.BUILDFLEET_LOCK_DURATION_MS,
      stalledInterval: fleet.config.BUILDFLEET_STALLED_INTERVAL_MS,
      maxStalledCount: 3,
    },
  );
  worker.on('error', (error) => fleet.logger.error({ err: error.message }, 'tool worker error'));
  // runToolJob turns tool failures into is_error results. A job that still fails for good (its
  // data, Redis, a stalled job) does not end its run: a tool failure is data. BullMQ lets the
  // parent turn run without it (ignoreDependencyOnFailure) and the turn tells the model the call
  // failed after its attempts (src/agent/turn-input.ts). Logged here with its reason, which the
  // run's `tool-result-miss` event does not carry (the failed job keeps it in BullMQ too).
  worker.on('failed', (job, error) => {
    if (!job) return;
    const final = isFinalFailure({ attemptsMade: job.attemptsMade, attempts: job.opts.attempts, errorName: error.name });
    fleet.logger.warn(
      {
        run_id: job.data.runId,
        step: job.data.turn,
        job_id: job.id,
        tool: job.data.name,
        tool_use_id: job.data.toolUseId,
        attempt: job.attemptsMade,
        final,
        err: error.message,
      },
      final ? 'tool job failed for good; its turn answers the call as failed' : 'tool job attempt failed',
    );
  });
  governor.attach(worker);
  worker.on('closed', () => governor.stop());
  worker.on('closed', () => void (connection.status === 'ready' ? connection.quit().catch(() => connection.disconnect()) : connection.disconnect()));
  return worker;
}
