// The model worker: takes model-turn jobs and maps each turn's result onto BullMQ mechanics (the
// retry intent itself is decided in src/agent/decide-model-retry.ts).
import { Worker, DelayedError, type Job } from 'bullmq';
import type Anthropic from '@anthropic-ai/sdk';
import { runModelTurn, type ModelTurnDependencies, type ModelTurnHooks } from '../agent/run-model-turn.js';
import { shardRole, type WorkerFleet } from './worker-fleet.js';
import { ConcurrencyGovernor, type ConcurrencyChange } from './concurrency-governor.js';
import { inSpan, SpanKind } from '../telemetry/tracing.js';
import { SPAN_ATTRIBUTES, SPAN_NAMES } from '../telemetry/span-attributes.js';
import { redisTargetOf } from '../domain/redis-target.js';
import { connectRedis, workerIdentity } from '../redis/redis-connection.js';
import { ModelCallPause } from '../model/model-call-pause.js';
import { ModelRateLimiter } from '../model/model-rate-limiter.js';
import { SpendLimitFlagStore } from '../model/spend-limit-flag.js';
import { TokenCalibration } from '../model/token-calibration.js';
import { QUEUE_NAMES, modelJobSchema, type ModelJobData } from '../jobs/job-catalog.js';
import { endRunOfFailedModelJob } from './end-run-of-failed-job.js';
import { RunReaper } from './run-reaper.js';
import { createProviderRegistry, type ProviderRegistry } from '../providers/provider-registry.js';

class RetryableModelError extends Error {
  constructor(
    readonly delayMs: number,
    cause: Error,
  ) {
    super(cause.message, { cause });
    this.name = 'RetryableModelError';
  }
}

export interface ModelWorkerOptions {
  /** The process's providers (src/providers/provider-registry.ts); default: built from the config. */
  providers?: ProviderRegistry;
  /** The implicit `anthropic` provider's client when no `providers` are given (tests bend its
   * fetch); default: createModelClient(config). */
  client?: Anthropic;
  concurrency?: number;
  recover?: ModelTurnDependencies['recover'];
  hooks?: ModelTurnHooks;
  toolsFor?: ModelTurnDependencies['toolsFor'];
  /** Job processing time in ms, for the job duration metric. */
  onJobDone?: (durationMs: number) => void;
  /** Each change the concurrency governor makes (src/workers/concurrency-governor.ts). */
  onConcurrencyChange?: (change: ConcurrencyChange) => void;
  /** false: this worker runs no reaper (src/workers/run-reaper.ts), whatever the config says. */
  reaper?: false;
}

export function startModelWorker(fleet: WorkerFleet, options: ModelWorkerOptions): Worker<ModelJobData> {
  // One pause per provider identity and rate-limit class, shared by every worker process: a 429's
  // retry-after or a 529's growing backoff seen by any worker holds that scope's calls in all of
  // them (Lua, extend-only: model-call-pause.ts).
  const modelPause = new ModelCallPause(fleet.redis, fleet.store.keys.prefix, {
    overloadBaseMs: fleet.config.BUILDFLEET_OVERLOAD_BACKOFF_BASE_MS,
    overloadCapMs: fleet.config.BUILDFLEET_OVERLOAD_BACKOFF_CAP_MS,
  });
  const deps: ModelTurnDependencies = {
    store: fleet.store,
    queues: fleet.queues,
    providers: options.providers ?? createProviderRegistry({ config: fleet.config, ...(options.client ? { anthropicClient: options.client } : {}) }),
    config: fleet.config,
    logger: fleet.logger,
    recover: options.recover ?? null,
    ...(options.hooks ? { hooks: options.hooks } : {}),
    ...(options.toolsFor ? { toolsFor: options.toolsFor } : {}),
    modelPause,
    spendLimit: new SpendLimitFlagStore(fleet.redis, fleet.config),
    ...(fleet.modelDescriptions ? { modelDescriptions: fleet.modelDescriptions } : {}),
    // The measured token ratios of this worker's models (token-calibration.ts), kept in memory:
    // each process measures its own, on its first call of a model and now and then after.
    tokenCalibration: new TokenCalibration({
      everyCalls: fleet.config.BUILDFLEET_TOKEN_CALIBRATION_CALLS,
      intervalMs: fleet.config.BUILDFLEET_TOKEN_CALIBRATION_INTERVAL_MS,
    }),
    // One limiter for every worker process, buckets per (provider, its key, model) (docs/admission.md), when on.
    ...(fleet.config.BUILDFLEET_ADMISSION === 'on'
      ? {
          admission: new ModelRateLimiter(
            fleet.redis,
            fleet.store.keys.prefix,
            {
              limits: fleet.config.BUILDFLEET_ADMISSION_LIMITS,
              batchHeadroom: fleet.config.BUILDFLEET_ADMISSION_BATCH_HEADROOM,
              reservationTtlMs: fleet.config.BUILDFLEET_ADMISSION_RESERVATION_TTL_MS,
              bookingGraceMs: fleet.config.BUILDFLEET_ADMISSION_BOOKING_GRACE_MS,
            },
            options.hooks?.onAdmission,
          ),
        }
      : {}),
  };
  // BullMQ does not close a connection it was given; the worker's own one closes with it.
  const connection = connectRedis(redisTargetOf(fleet.config));
  const governor = new ConcurrencyGovernor({
    ceiling: options.concurrency ?? fleet.config.BUILDFLEET_MODEL_CONCURRENCY,
    targetDelayMs: fleet.config.BUILDFLEET_WORKER_LOOP_DELAY_TARGET_MS,
    ...(options.onConcurrencyChange ? { onChange: options.onConcurrencyChange } : {}),
  });
  const worker: Worker<ModelJobData> = new Worker<ModelJobData>(
    QUEUE_NAMES.model,
    async (job: Job<ModelJobData>, token?: string) => {
      const data = modelJobSchema.parse(job.data);
      const started = performance.now();
      const result = await governor.track(() =>
        inSpan(
          SPAN_NAMES.modelTurn,
          {
            parent: data.trace,
            kind: SpanKind.CONSUMER,
            attributes: {
              [SPAN_ATTRIBUTES.runId]: data.runId,
              [SPAN_ATTRIBUTES.turn]: data.turn,
              [SPAN_ATTRIBUTES.jobId]: job.id ?? '',
              [SPAN_ATTRIBUTES.queue]: QUEUE_NAMES.model,
              [SPAN_ATTRIBUTES.attempt]: job.attemptsMade + 1,
            },
          },
          () => runModelTurn(deps, data, { jobId: job.id ?? '', attemptsMade: job.attemptsMade, maxAttempts: job.opts.attempts ?? 1 }),
        ),
      );
      options.onJobDone?.(performance.now() - started);
      if (result.kind === 'done') return result.detail;
      // Retry intent was decided once (src/agent/decide-model-retry.ts); here it only becomes
      // BullMQ mechanics. A wait that spends no attempt (the pause of the call's provider and
      // rate-limit class, a 429's retry-after, an overload episode, an admission slot) delays
      // this job alone (DelayedError: back to the delayed set, no attempt counted), never the
      // queue's rate limit, which is one key for the whole queue: a pause on one class would hold
      // every other class's and provider's turns. One that does is a thrown error whose backoff
      // is the decided delay.
      if (!result.spendsAttempt) {
        await job.moveToDelayed(Date.now() + result.delayMs, token);
        throw new DelayedError();
      }
      throw new RetryableModelError(result.delayMs, result.error);
    },
    {
      connection,
      prefix: fleet.queues.own.keys.queuePrefix,
      // Recorded on each job as processedBy, so a run can be traced to the worker that ran it.
      name: workerIdentity(shardRole(fleet, 'model')),
      concurrency: governor.initialConcurrency,
      // Locks: a worker killed mid-turn loses its lock after lockDuration; the stalled check
      // then hands the job to another worker (at most maxStalledCount times).
      lockDuration: fleet.config.BUILDFLEET_LOCK_DURATION_MS,
      stalledInterval: fleet.config.BUILDFLEET_STALLED_INTERVAL_MS,
      maxStalledCount: 3,
      settings: {
        // The delay decided for this retry; an error that is not ours (a crash inside BullMQ's
        // own processing) gets the base delay.
        backoffStrategy: (_attemptsMade: number, _type?: string, error?: Error) =>
          error instanceof RetryableModelError ? error.delayMs : fleet.config.BUILDFLEET_RETRY_BASE_MS,
      },
    },
  );
  worker.on('error', (error) => fleet.logger.error({ err: error.message }, 'model worker error'));
  governor.attach(worker);
  worker.on('closed', () => governor.stop());
  worker.on('closed', () => void (connection.status === 'ready' ? connection.quit().catch(() => connection.disconnect()) : connection.disconnect()));
  worker.on('failed', (job, error) => {
    if (!job) return;
    fleet.logger.warn({ run_id: job.data.runId, step: job.data.turn, attempt: job.attemptsMade, err: error.message }, 'model job attempt failed');
    // The last attempt ends the run; should this process die first, the reaper finds the failed job.
    void endRunOfFailedModelJob({ store: fleet.store, logger: fleet.logger }, { job, error }).catch((failure: unknown) =>
      fleet.logger.error({ run_id: job.data.runId, err: failure instanceof Error ? failure.message : String(failure) }, 'run of a failed model job not ended'),
    );
  });
  // Every model worker process offers to sweep; the reaper's lock lets one at a time.
  if (options.reaper !== false && fleet.config.BUILDFLEET_REAPER_INTERVAL_MS > 0) {
    const reaper = new RunReaper(
      { store: fleet.store, queues: fleet.queues, logger: fleet.logger },
      {
        intervalMs: fleet.config.BUILDFLEET_REAPER_INTERVAL_MS,
        graceMs: fleet.config.BUILDFLEET_REAPER_GRACE_MS,
        maxRecoveries: fleet.config.BUILDFLEET_REAPER_MAX_RECOVERIES,
      },
    );
    reaper.start();
    worker.on('closing', () => void reaper.stop());
  }
  return worker;
}
