// The fleet's queues and the one place that turns "what should run next" into BullMQ jobs.
import { FlowProducer, Queue, type JobState, type JobsOptions } from 'bullmq';
import type { RedisClient } from '../redis/redis-connection.js';
import {
  ARCHIVE_QUEUE_NAME,
  QUEUE_NAMES,
  WEBHOOK_QUEUE_NAME,
  webhookJobSchema,
  type WebhookJobData,
  archiveJobSchema,
  jobIds,
  type ArchiveJobData,
  modelJobSchema,
  toolJobSchema,
  type ModelJobData,
  type QueueName,
  type ToolJobData,
} from './job-catalog.js';

// Completed jobs stay long enough that a re-run of an earlier step finds its successor's job id
// taken (dedupe), and few enough that Redis memory stays bounded (the count:
// BUILDFLEET_COMPLETED_JOBS_KEPT, which FleetQueues applies).
const KEEP_COMPLETED = { age: 24 * 3600, count: 50_000 };
const KEEP_FAILED = { age: 7 * 24 * 3600, count: 50_000 };

export const MODEL_JOB_OPTIONS: JobsOptions = {
  // FleetQueues sets attempts from BUILDFLEET_MODEL_ATTEMPTS.
  attempts: 5,
  backoff: { type: 'fleet' },
  removeOnComplete: KEEP_COMPLETED,
  removeOnFail: KEEP_FAILED,
};

/** Archive jobs retry with backoff (PostgreSQL down for a while, a failover; 1 s doubling: ~34 min)
 * before failing for good; a failed one stays KEEP_FAILED long for an operator to see, and the
 * archive sweep (src/workers/archive-sweeper.ts) gives it a new round of attempts an hour later. Completed
 * ones are removed at once: the run row in PostgreSQL is the record that the run was archived, and
 * the deterministic job id only has to dedupe jobs that are still pending. */
export const ARCHIVE_JOB_OPTIONS: JobsOptions = {
  attempts: 12,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: KEEP_FAILED,
};

/** Webhook deliveries (docs/webhooks.md#retries): attempts and the first backoff come from the
 * configuration (FleetQueues.enqueueWebhook). Completed jobs are kept a day, so the same run event
 * reported again within it finds its delivery's id taken and is not posted twice; failed ones a
 * week, for an operator to see. */
const WEBHOOK_JOB_OPTIONS: JobsOptions = {
  removeOnComplete: KEEP_COMPLETED,
  removeOnFail: KEEP_FAILED,
};

/** Attempts of a tool job; the model is told a call failed after them (src/agent/turn-input.ts). */
export const TOOL_JOB_ATTEMPTS = 3;

export const TOOL_JOB_OPTIONS: JobsOptions = {
  attempts: TOOL_JOB_ATTEMPTS,
  backoff: { type: 'exponential', delay: 500 },
  removeOnComplete: KEEP_COMPLETED,
  removeOnFail: KEEP_FAILED,
  // A tool job that fails for good (infrastructure, every attempt) must not strand the next model
  // turn, nor end the run: tool failures are data. BullMQ moves its id to the parent's failed
  // dependencies (bullmq 5 JobsOptions.ignoreDependencyOnFailure; moveChildFromDependenciesIfNeeded.lua
  // moves the parent to wait once none is pending), and the turn answers the call with
  // an is_error tool_result (`job_attempts_exhausted`); the run's turn and budget limits bound it.
  ignoreDependencyOnFailure: true,
};

/** Every queue of the fleet, in the order an operator reads a run through them (the admin routes
 * and the console list them all). */
export const FLEET_QUEUE_NAMES = [QUEUE_NAMES.model, QUEUE_NAMES.tool, WEBHOOK_QUEUE_NAME, ARCHIVE_QUEUE_NAME] as const;
export type FleetQueueName = (typeof FLEET_QUEUE_NAMES)[number];

export class FleetQueues {
  private readonly modelJobOptions: JobsOptions;
  private readonly toolJobOptions: JobsOptions;
  private readonly options: { connection: RedisClient; prefix: string };
  private created: {
    model?: Queue<ModelJobData>;
    tool?: Queue<ToolJobData>;
    archive?: Queue<ArchiveJobData>;
    webhook?: Queue<WebhookJobData>;
    flows?: FlowProducer;
  } = {};

  constructor(
    connection: RedisClient,
    // Structural (the engine's KeySpace has it): the job protocol sits below the run engine, which
    // enqueues jobs, so it names only the queue prefix it needs.
    readonly keys: { queuePrefix: string },
    modelAttempts = 5,
    completedJobsKept = KEEP_COMPLETED.count,
  ) {
    const removeOnComplete = { ...KEEP_COMPLETED, count: completedJobsKept };
    this.modelJobOptions = { ...MODEL_JOB_OPTIONS, attempts: modelAttempts, removeOnComplete };
    this.toolJobOptions = { ...TOOL_JOB_OPTIONS, removeOnComplete };
    this.options = { connection, prefix: keys.queuePrefix };
  }

  // Created on first use: a process that never enqueues (or closes before Redis answered) holds
  // no BullMQ objects and no pending initialisation that could reject after close.
  get model(): Queue<ModelJobData> {
    return (this.created.model ??= watch(new Queue<ModelJobData>(QUEUE_NAMES.model, this.options)));
  }

  get tool(): Queue<ToolJobData> {
    return (this.created.tool ??= watch(new Queue<ToolJobData>(QUEUE_NAMES.tool, this.options)));
  }

  get archive(): Queue<ArchiveJobData> {
    return (this.created.archive ??= watch(new Queue<ArchiveJobData>(ARCHIVE_QUEUE_NAME, this.options)));
  }

  get webhook(): Queue<WebhookJobData> {
    return (this.created.webhook ??= watch(new Queue<WebhookJobData>(WEBHOOK_QUEUE_NAME, this.options)));
  }

  /** Enqueues one webhook delivery under its deterministic id (its payload's `id`): the same run
   * event enqueued again while its job is kept is a no-op. Retried `attempts` times, the delay from
   * `backoffMs` doubling each time, with jitter so a receiver that was down is not hit by every
   * delivery at once when it comes back. */
  async enqueueWebhook(data: WebhookJobData, retry: { attempts: number; backoffMs: number }): Promise<void> {
    const checked = webhookJobSchema.parse(data);
    await this.webhook.add(checked.payload.event, checked, {
      ...WEBHOOK_JOB_OPTIONS,
      attempts: retry.attempts,
      backoff: { type: 'exponential', delay: retry.backoffMs, jitter: 0.5 },
      jobId: checked.payload.id,
    });
  }

  /** Enqueues the archive of a run that ended; a second call for the same run while its job is
   * pending is a no-op (deterministic job id). */
  async enqueueArchive(runId: string): Promise<void> {
    const data = archiveJobSchema.parse({ runId });
    await this.archive.add('archive', data, { ...ARCHIVE_JOB_OPTIONS, jobId: jobIds.archive(data.runId) });
  }

  /** The state of a run's archive job ('unknown': none — never enqueued, completed and removed, or
   * lost), and when it finished (ms) if it failed for good. */
  async archiveJob(runId: string): Promise<{ state: JobState | 'unknown'; finishedOn: number | null }> {
    const job = await this.archive.getJob(jobIds.archive(archiveJobSchema.parse({ runId }).runId));
    if (!job) return { state: 'unknown', finishedOn: null };
    return { state: await job.getState(), finishedOn: job.finishedOn ?? null };
  }

  /** Gives a run's archive job that failed for good a new round of attempts (the archive sweep, once
   * PostgreSQL has been back a while); false when there is no such failed job. */
  async retryFailedArchive(runId: string): Promise<boolean> {
    const job = await this.archive.getJob(jobIds.archive(archiveJobSchema.parse({ runId }).runId));
    if (!job || !(await job.isFailed())) return false;
    await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    return true;
  }

  /** The queue of that name (created on first use, as the getters). */
  queue(name: FleetQueueName): Queue {
    return this[name] as Queue;
  }

  get flows(): FlowProducer {
    return (this.created.flows ??= watch(new FlowProducer(this.options)));
  }

  /** Enqueues a model turn with nothing to wait for. */
  async enqueueTurn(data: ModelJobData, jobId = jobIds.modelTurn(data.runId, data.turn)): Promise<void> {
    const checked = modelJobSchema.parse(data);
    await this.model.add('turn', checked, { ...this.modelJobOptions, jobId });
  }

  /** Fans a turn's tool calls out to the tool queue and fans them back in: the next model turn
   * is the flow's parent, so it runs once every tool job has finished. `parentJobId` names a
   * parent other than the turn's own job (the reaper's recovery of a turn whose job is gone). */
  async enqueueToolFanOut(next: ModelJobData, tools: ToolJobData[], options: { mayExist?: boolean; parentJobId?: string } = {}): Promise<void> {
    const parentData = modelJobSchema.parse(next);
    const parentId = options.parentJobId ?? jobIds.modelTurn(next.runId, next.turn);
    // A replay of the turn that made this flow (its outcome was committed before) may find the
    // parent there already: adding the flow again would create a second parent, so it is skipped.
    // A first dispatch (the caller just committed the outcome, once) cannot, and skips the read.
    if (options.mayExist !== false && (await this.model.getJob(parentId))) return;
    await this.flows.add({
      name: 'turn',
      queueName: QUEUE_NAMES.model,
      data: parentData,
      opts: { ...this.modelJobOptions, jobId: parentId },
      children: tools.map((tool) => ({
        name: tool.name,
        queueName: QUEUE_NAMES.tool,
        data: toolJobSchema.parse(tool),
        opts: { ...this.toolJobOptions, jobId: jobIds.tool(tool.runId, tool.toolUseId) },
      })),
    });
  }

  /**
   * Adds tool jobs as children of a model job that is waiting for its children: a child that was
   * lost (deleted behind BullMQ's back) left its key in the parent's dependencies, which only that
   * child's completion clears. Same job id, so the new child clears it and the parent goes on
   * (BullMQ addStandardJob: SADD to the parent's dependencies; moveToFinished: SREM, and the parent
   * moves to wait when none is left). Refused by BullMQ when the parent no longer exists.
   */
  async addToolJobsToParent(parentJobId: string, tools: ToolJobData[]): Promise<void> {
    for (const tool of tools) {
      const data = toolJobSchema.parse(tool);
      await this.tool.add(data.name, data, {
        ...this.toolJobOptions,
        jobId: jobIds.tool(data.runId, data.toolUseId),
        parent: { id: parentJobId, queue: this.model.qualifiedName },
      });
    }
  }

  /** The state of a job by id: 'unknown' when no such job exists (never added, removed, or lost). */
  async jobState(queue: QueueName, jobId: string): Promise<JobState | 'unknown'> {
    return (queue === QUEUE_NAMES.model ? this.model : this.tool).getJobState(jobId);
  }

  /** Why a failed job failed, as BullMQ recorded it (null: no such job, or no reason). */
  async failedReason(queue: QueueName, jobId: string): Promise<string | null> {
    const job = await (queue === QUEUE_NAMES.model ? this.model : this.tool).getJob(jobId);
    return job?.failedReason ?? null;
  }

  /** Whether an operator paused either queue (Queue.pause): no job of it moves until resumed. */
  async anyPaused(): Promise<boolean> {
    const [model, tool] = await Promise.all([this.model.isPaused(), this.tool.isPaused()]);
    return model || tool;
  }

  async close(): Promise<void> {
    const parts = Object.values(this.created);
    this.created = {};
    await Promise.all(parts.map((part) => part.close()));
  }
}

/** BullMQ re-emits connection failures as 'error' events; an emitter without a listener turns
 * them into unhandled rejections. The shared connection's own listener logs them once. */
function watch<Part extends Queue | FlowProducer>(part: Part): Part {
  (part as unknown as NodeJS.EventEmitter).on('error', () => undefined);
  void part.waitUntilReady().catch(() => undefined);
  return part;
}
