// The archive worker: takes one `archive` job per finished run, writes the run's whole history to
// PostgreSQL (HistoryStore.archiveRun) and then lets the run's Redis keys expire after the
// retention (RunEngine.expireArchivedRun). Both steps are idempotent, so a re-delivered job (a
// stalled worker, a retry after the expiry failed) writes nothing twice: the store keeps the first
// archive, and the expiry only sets the same TTL again.
import { Worker, type Job } from 'bullmq';
import type { WorkerFleet } from './worker-fleet.js';
import type { RunEngine } from '../engine/run-engine.js';
import type { HistoryStore } from '../history/history-store.js';
import { connectRedis, workerIdentity } from '../jobs/redis-connection.js';
import { ARCHIVE_QUEUE_NAME, archiveJobSchema, type ArchiveJobData } from '../jobs/job-catalog.js';
import { runArchiveOf } from './run-archive-of.js';

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

export interface ArchiveDependencies {
  store: RunEngine;
  history: HistoryStore;
  /** How long a run's keys stay in Redis once archived (BUILDFLEET_RUN_RETENTION_SECONDS, in ms). */
  retentionMs: number;
}

/** Archives one run that ended and starts its retention. A run that has not ended is an error
 * (RunNotEnded): the job retries, and nothing of a run still changing is written. */
export async function archiveFinishedRun(deps: ArchiveDependencies, runId: string): Promise<ArchiveOutcome> {
  const source = await deps.store.readRunForArchive(runId);
  if (source === null) return 'missing';
  if (source === 'live') throw new RunNotEnded(runId);
  const { archived } = await deps.history.archiveRun(runArchiveOf(source));
  // Only after the history is committed: keys that expire before it would lose the run.
  const expiry = await deps.store.expireArchivedRun(runId, deps.retentionMs);
  if (expiry === 'missing') return 'missing';
  if (expiry === 'live') throw new RunNotEnded(runId);
  return archived ? 'archived' : 'already-archived';
}

export interface ArchiveWorkerOptions {
  history: HistoryStore;
  retentionMs: number;
  /** Archive jobs at once (default 2: each is a few Redis reads and one PostgreSQL transaction). */
  concurrency?: number;
}

export function startArchiveWorker(fleet: WorkerFleet, options: ArchiveWorkerOptions): Worker<ArchiveJobData> {
  const deps: ArchiveDependencies = { store: fleet.store, history: options.history, retentionMs: options.retentionMs };
  // BullMQ does not close a connection it was given; the worker's own one closes with it.
  const connection = connectRedis(fleet.config.REDIS_URL);
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
      prefix: fleet.store.keys.queuePrefix,
      name: workerIdentity('archive'),
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
    fleet.logger.warn({ run_id: job.data.runId, job_id: job.id, attempt: job.attemptsMade, final, err: error.message }, final ? 'archive job failed for good; the run stays in Redis' : 'archive job attempt failed');
  });
  worker.on('closed', () => void (connection.status === 'ready' ? connection.quit().catch(() => connection.disconnect()) : connection.disconnect()));
  return worker;
}
