// The archive worker: takes one `archive` job per finished run, writes the run's whole history to
// PostgreSQL (HistoryStore.archiveRun), writes its published pointer to the site store where only
// Redis holds it (keep-run-sites.ts), and then lets the run's Redis keys expire after the retention
// (RunEngine.expireArchivedRun, which also takes the run off the unarchived-run index). Every step
// is idempotent, so a re-delivered job (a stalled worker, a retry after the expiry failed, the
// archive sweep re-enqueueing a run whose index entry outlived its job) writes nothing twice: the
// store keeps the first archive, a pointer naming the live deployment is left as it is, and the expiry only
// sets the same TTL again. It runs in the tool worker processes, which mount the sites volume
// (start-archiving.ts).
import { Worker, type Job } from 'bullmq';
import { shardRole, type WorkerFleet } from './worker-fleet.js';
import type { RunArchiveSource, RunEngine } from '../engine/index.js';
import type { HistoryStore } from '../history/history-store.js';
import { redisTargetOf } from '../domain/redis-target.js';
import { connectRedis, workerIdentity } from '../redis/redis-connection.js';
import { ARCHIVE_QUEUE_NAME, QUEUE_NAMES, archiveJobSchema, jobIds, type ArchiveJobData } from '../jobs/job-catalog.js';
import type { QueueShards } from '../jobs/queue-shards.js';
import { runArchiveOf } from './run-archive-of.js';
import type { SiteStore } from '../sites/site-store.js';
import { siteStoreOf } from '../sites/site-store-of-config.js';
import { keepRunSites } from './keep-run-sites.js';

export type ArchiveOutcome =
  /** This job wrote the run's history; its keys now expire. */
  | 'archived'
  /** The history was written before (an earlier delivery); its keys now expire. */
  | 'already-archived'
  /** No run in Redis: expired after an earlier archive, or never existed. Nothing to do. */
  | 'missing';

export class RunNotEnded extends Error {
  readonly code = 'run_not_ended';
  constructor(runId: string) {
    super(`The run ${runId} has not ended; it is archived once it has`);
    this.name = 'RunNotEnded';
  }
}

/** The run ended, but a job of it may still write to it: its archive waits (the attempt fails and
 * retries with backoff) so the history holds what that job records. */
export class RunNotSettled extends Error {
  readonly code = 'run_not_settled';
  constructor(runId: string, pending: readonly string[]) {
    super(`The run ${runId} ended but ${pending.join(', ')} may still write to it; it is archived once they finish`);
    this.name = 'RunNotSettled';
  }
}

/** BullMQ states of a job that has not finished: it may still record a paid answer or a tool result. */
const UNFINISHED_JOB_STATES: ReadonlySet<string> = new Set(['active', 'waiting', 'delayed', 'prioritized', 'waiting-children']);

/**
 * The jobs of an ended run that may still write to it. A run ends while its jobs run on: a cancel
 * during a model call, whose answer is then committed and charged to the ended run
 * (bfCommitAnswer), and tool jobs queued before the end, which record a run_ended result. Archived
 * before they finish, the history would miss that cost and those results for good, and their
 * writes would land on keys already set to expire (or recreate them without a TTL). So: the job
 * that claimed the run's last turn while the turn has no committed answer, and the tool job of
 * every call the transcript holds without a recorded result.
 */
async function unfinishedJobsOf(deps: ArchiveDependencies, source: RunArchiveSource): Promise<string[]> {
  const { run } = source;
  const pending: string[] = [];
  if (!source.turns.some((turn) => turn.turn === run.turn && turn.response !== null)) {
    const claimant = await deps.store.turnClaimant(run.id, run.turn);
    if (claimant && UNFINISHED_JOB_STATES.has(await deps.queues.of(run.queueShard).jobState(QUEUE_NAMES.model, claimant)))
      pending.push(`model job ${claimant}`);
  }
  for (const call of runArchiveOf(source).toolCalls) {
    if (call.status !== 'unanswered') continue;
    const jobId = jobIds.tool(run.id, call.toolUseId);
    if (UNFINISHED_JOB_STATES.has(await deps.queues.of(run.queueShard).jobState(QUEUE_NAMES.tool, jobId))) pending.push(`tool job ${jobId}`);
  }
  return pending;
}

export interface ArchiveDependencies {
  store: RunEngine;
  /** Where the run's jobs are looked up: the archive waits for those still running. */
  queues: Pick<QueueShards, 'of'>;
  history: HistoryStore;
  /** Where the run's sites must be before its keys expire (siteStoreOf(config)). */
  sites: SiteStore;
  /** How long a run's keys stay in Redis once archived (BUILDFLEET_RUN_RETENTION_SECONDS, in ms). */
  retentionMs: number;
}

/** Archives one run that ended and starts its retention. A run that has not ended is an error
 * (RunNotEnded): the job retries, and nothing of a run still changing is written. */
export async function archiveFinishedRun(deps: ArchiveDependencies, runId: string): Promise<ArchiveOutcome> {
  const source = await deps.store.readRunForArchive(runId);
  if (source === null) {
    // Its keys expired after an earlier archive (or it never existed): nothing is left to archive,
    // and an index entry left behind (a crash before it was removed) must not be swept forever.
    await deps.store.forgetUnarchivedRun(runId);
    return 'missing';
  }
  if (source === 'live') throw new RunNotEnded(runId);
  const pending = await unfinishedJobsOf(deps, source);
  if (pending.length > 0) throw new RunNotSettled(runId, pending);
  // The jobs were seen finished after `source` was read, and may have written in between (a call
  // stopped by the run's end charges what it streamed as it finishes): the run is read again now
  // that none writes to it, and that is what history keeps.
  const settled = await deps.store.readRunForArchive(runId);
  if (settled === null) return 'missing';
  if (settled === 'live') throw new RunNotEnded(runId);
  const { archived } = await deps.history.archiveRun(runArchiveOf(settled));
  // Only after the history is committed and the sites stand on the store: keys that expire before
  // either would lose the run, or take its published site down with them.
  await keepRunSites({ engine: deps.store, sites: deps.sites, run: settled.run });
  const expiry = await deps.store.expireArchivedRun(runId, deps.retentionMs);
  if (expiry === 'missing') return 'missing';
  if (expiry === 'live') throw new RunNotEnded(runId);
  return archived ? 'archived' : 'already-archived';
}

export interface ArchiveWorkerOptions {
  history: HistoryStore;
  /** Default: the fleet's own (siteStoreOf(config), the store the sites origin serves). */
  sites?: SiteStore;
  retentionMs: number;
  /** Archive jobs at once (default 2: each is a few Redis reads and one PostgreSQL transaction). */
  concurrency?: number;
}

export function startArchiveWorker(fleet: WorkerFleet, options: ArchiveWorkerOptions): Worker<ArchiveJobData> {
  const deps: ArchiveDependencies = {
    store: fleet.store,
    queues: fleet.queues,
    history: options.history,
    sites: options.sites ?? siteStoreOf(fleet.config),
    retentionMs: options.retentionMs,
  };
  // BullMQ does not close a connection it was given; the worker's own one closes with it.
  const connection = connectRedis(redisTargetOf(fleet.config));
  const worker = new Worker<ArchiveJobData>(
    ARCHIVE_QUEUE_NAME,
    async (job: Job<ArchiveJobData>) => {
      const { runId } = archiveJobSchema.parse(job.data);
      const outcome = await archiveFinishedRun(deps, runId);
      fleet.logger.info({ run_id: runId, event: 'run-archive', outcome, job_id: job.id }, `run ${outcome}`);
      return { outcome };
    },
    {
      connection,
      prefix: fleet.queues.own.keys.queuePrefix,
      name: workerIdentity(shardRole(fleet, 'archive')),
      concurrency: options.concurrency ?? 2,
      lockDuration: fleet.config.BUILDFLEET_LOCK_DURATION_MS,
      stalledInterval: fleet.config.BUILDFLEET_STALLED_INTERVAL_MS,
      maxStalledCount: 3,
    },
  );
  worker.on('error', (error) => fleet.logger.error({ err: error.message }, 'archive worker error'));
  worker.on('failed', (job, error) => {
    if (!job) return;
    const final = job.attemptsMade >= (job.opts.attempts ?? 1);
    fleet.logger.warn(
      { run_id: job.data.runId, job_id: job.id, attempt: job.attemptsMade, final, err: error.message },
      final ? 'archive job failed for good; the run stays in Redis' : 'archive job attempt failed',
    );
  });
  worker.on('closed', () => void (connection.status === 'ready' ? connection.quit().catch(() => connection.disconnect()) : connection.disconnect()));
  return worker;
}
