// The model worker: takes model-turn jobs and maps each turn's result onto BullMQ mechanics —
// the one place where retry intent becomes queue behaviour.
import { Worker, RateLimitError, type Job } from 'bullmq';
import type Anthropic from '@anthropic-ai/sdk';
import { runModelTurn, type ModelTurnDependencies, type ModelTurnHooks } from '../agent/run-model-turn.js';
import { backoffDelay, type RetryOutcome } from '../model/classify-model-error.js';
import type { FleetContext } from '../fleet/fleet-context.js';
import { inSpan, SpanKind } from '../telemetry/tracing.js';
import { SPAN_ATTRIBUTES, SPAN_NAMES } from '../telemetry/span-attributes.js';
import { connectRedis, workerIdentity } from './redis-connection.js';
import { ModelCallPause } from './model-call-pause.js';
import { SpendLimitFlagStore } from '../fleet/spend-limit-flag.js';
import { QUEUE_NAMES, modelJobSchema, type ModelJobData } from './job-catalog.js';

/** A retry-after longer than this many cycles in one turn fails the run instead of looping. */
export const MAX_RATE_LIMIT_CYCLES = 20;

class RetryableModelError extends Error {
  constructor(
    readonly outcome: RetryOutcome,
    cause: Error,
  ) {
    super(cause.message, { cause });
    this.name = 'RetryableModelError';
  }
}

export interface ModelWorkerOptions {
  client: Anthropic;
  concurrency?: number;
  recover?: ModelTurnDependencies['recover'];
  hooks?: ModelTurnHooks;
  toolsFor?: ModelTurnDependencies['toolsFor'];
  /** Job processing time in ms, for the job duration metric. */
  onJobDone?: (durationMs: number) => void;
}

export function startModelWorker(fleet: FleetContext, options: ModelWorkerOptions): Worker<ModelJobData> {
  // One pause for every worker process of the fleet: a 429's retry-after or a 529's growing
  // backoff seen by any worker holds them all (Lua, extend-only: model-call-pause.ts).
  const modelPause = new ModelCallPause(fleet.redis, fleet.store.keys.prefix, {
    overloadBaseMs: fleet.config.BUILDFLEET_OVERLOAD_BACKOFF_BASE_MS,
    overloadCapMs: fleet.config.BUILDFLEET_OVERLOAD_BACKOFF_CAP_MS,
  });
  const deps: ModelTurnDependencies = {
    store: fleet.store,
    queues: fleet.queues,
    client: options.client,
    config: fleet.config,
    logger: fleet.logger,
    recover: options.recover ?? null,
    ...(options.hooks ? { hooks: options.hooks } : {}),
    ...(options.toolsFor ? { toolsFor: options.toolsFor } : {}),
    modelPause,
    spendLimit: new SpendLimitFlagStore(fleet.redis, fleet.config),
  };
  // BullMQ does not close a connection it was given; the worker's own one closes with it.
  const connection = connectRedis(fleet.config.REDIS_URL);
  const worker: Worker<ModelJobData> = new Worker<ModelJobData>(
    QUEUE_NAMES.model,
    async (job: Job<ModelJobData>) => {
      const data = modelJobSchema.parse(job.data);
      // A 429 or 529 seen by any worker holds every worker until the pause has passed.
      const remaining = await modelPause.remainingMs();
      if (remaining > 0) {
        await worker.rateLimit(remaining);
        throw new RateLimitError();
      }
      const started = performance.now();
      const result = await inSpan(
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
      );
      options.onJobDone?.(performance.now() - started);
      if (result.kind === 'done') return result.detail;
      // Paused, or overloaded: the pause is in Redis already; the job waits it out as BullMQ's
      // queue rate limit (RateLimitError moves it back without spending an attempt). Overload's
      // limit is its patience (run-model-turn.ts waitOutOverload), not a number of attempts.
      if (result.kind === 'paused' || result.outcome.kind === 'overloaded') {
        const waitMs = result.kind === 'paused' ? result.waitMs : await modelPause.remainingMs();
        await worker.rateLimit(Math.max(1, waitMs));
        throw new RateLimitError();
      }
      if (result.outcome.kind === 'rate_limited') {
        const cycles = await fleet.redis.hincrby(fleet.store.keys.turn(data.runId, data.turn), 'rateLimitCycles', 1);
        if (cycles > MAX_RATE_LIMIT_CYCLES) {
          const error = { code: 'rate_limit_exhausted', message: `The model stayed rate limited for ${cycles} retry-after cycles.` };
          if (await fleet.store.finishRun(data.runId, 'failed', { error })) {
            await fleet.store.appendEvent({ run_id: data.runId, step: data.turn, event: 'run-end', status: 'failed', error_code: error.code, message: error.message });
          }
          return 'rate_limit_exhausted';
        }
        // The fleet-wide pause was set by runModelTurn the moment the 429 arrived.
        await fleet.store.appendEvent({ run_id: data.runId, step: data.turn, event: 'model-rate-limit', wait_ms: result.outcome.waitMs, cycle: cycles });
        await worker.rateLimit(result.outcome.waitMs);
        throw new RateLimitError();
      }
      throw new RetryableModelError(result.outcome, result.error);
    },
    {
      connection,
      prefix: fleet.store.keys.queuePrefix,
      // Recorded on each job as processedBy, so a run can be traced to the worker that ran it.
      name: workerIdentity('model'),
      concurrency: options.concurrency ?? fleet.config.BUILDFLEET_MODEL_CONCURRENCY,
      // Locks: a worker killed mid-turn loses its lock after lockDuration; the stalled check
      // then hands the job to another worker (at most maxStalledCount times).
      lockDuration: fleet.config.BUILDFLEET_LOCK_DURATION_MS,
      stalledInterval: fleet.config.BUILDFLEET_STALLED_INTERVAL_MS,
      maxStalledCount: 3,
      settings: {
        backoffStrategy: (attemptsMade: number, _type?: string, error?: Error) => {
          const outcome = error instanceof RetryableModelError ? error.outcome : ({ kind: 'transient' } as const);
          return backoffDelay(attemptsMade, outcome, {
            baseMs: fleet.config.BUILDFLEET_RETRY_BASE_MS,
            rateLimitBaseMs: fleet.config.BUILDFLEET_RETRY_BASE_MS * 5,
            capMs: fleet.config.BUILDFLEET_RETRY_CAP_MS,
          });
        },
      },
    },
  );
  worker.on('error', (error) => fleet.logger.error({ err: error.message }, 'model worker error'));
  worker.on('closed', () => void (connection.status === 'ready' ? connection.quit().catch(() => connection.disconnect()) : connection.disconnect()));
  worker.on('failed', (job, error) => {
    if (job) fleet.logger.warn({ run_id: job.data.runId, step: job.data.turn, attempt: job.attemptsMade, err: error.message }, 'model job attempt failed');
  });
  return worker;
}
