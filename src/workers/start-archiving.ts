// Archiving in the fleet's processes (docs/history.md#every-finished-run-is-archived): the enqueue
// of an archive job as each run ends (every process), the archive worker and the archive sweep
// (the tool worker role: src/fleet/start-roles.ts). Why the tool workers: the archive step writes a
// run's published pointer to the site store (keep-run-sites.ts), and they are the worker role that mounts
// the sites volume (compose, k8s), as deploy writes there. Only with a HistoryStore
// (DATABASE_URL): without one nothing is archived and nothing expires.
import type { Worker } from 'bullmq';
import type { HistoryStore } from '../history/history-store.js';
import type { SiteStore } from '../sites/site-store.js';
import type { ArchiveJobData } from '../jobs/job-catalog.js';
import type { WorkerFleet } from './worker-fleet.js';
import { queuesOfRun } from './queues-of-run.js';
import { runWorkerWithSweep, type RunningWorkerWithSweep } from './run-worker-with-sweep.js';
import { startArchiveWorker } from './archive-worker.js';
import { ArchiveSweeper } from './archive-sweeper.js';

export type RunningArchiving = RunningWorkerWithSweep<Worker<ArchiveJobData>, ArchiveSweeper>;

export interface ArchivingOptions {
  history: HistoryStore;
  sites?: SiteStore;
  /** Default BUILDFLEET_RUN_RETENTION_SECONDS. */
  retentionMs?: number;
  /** Default BUILDFLEET_ARCHIVE_SWEEP_INTERVAL_MS; 0: no sweep in this process. */
  sweepIntervalMs?: number;
}

/** Enqueues the archive of every run that ends in this process, at once: the fast path. Every
 * process that can end a run wires it (the API cancels, model workers end most runs, the reaper
 * ends stalled ones), whichever role runs the worker. A lost enqueue (Redis refused it, the process
 * died first) is the sweep's to find: the run stays in the unarchived-run index until archived. */
export function archiveOnRunEnd(fleet: Pick<WorkerFleet, 'store' | 'queues' | 'logger'>): void {
  fleet.store.observeRunEnds(({ runId }) => {
    queuesOfRun(fleet, runId)
      .then((queues) => queues?.enqueueArchive(runId))
      .catch((error: unknown) => {
        fleet.logger.warn(
          { run_id: runId, err: error instanceof Error ? error.message : String(error) },
          'archive job not enqueued at run end; the archive sweep enqueues it',
        );
      });
  });
}

/** Starts the archive worker and the archive sweep in this process. */
export function startArchiving(fleet: WorkerFleet, options: ArchivingOptions): RunningArchiving {
  const retentionMs = options.retentionMs ?? fleet.config.BUILDFLEET_RUN_RETENTION_SECONDS * 1000;
  const sweepIntervalMs = options.sweepIntervalMs ?? fleet.config.BUILDFLEET_ARCHIVE_SWEEP_INTERVAL_MS;
  const worker = startArchiveWorker(fleet, { history: options.history, ...(options.sites ? { sites: options.sites } : {}), retentionMs });
  const sweeper = new ArchiveSweeper(
    { store: fleet.store, queues: fleet.queues, logger: fleet.logger },
    { intervalMs: sweepIntervalMs, graceMs: sweepIntervalMs },
  );
  return runWorkerWithSweep({ worker, sweeper });
}
