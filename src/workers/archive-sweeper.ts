// The archive sweep: every run that ended is archived even when the enqueue at its end was lost —
// the process died between the end and the enqueue, Redis refused the job, or the fleet ran without
// history for a while. The durable record is the engine's unarchived-run index (a run enters it as
// it ends, or through the reaper's hand-over, and leaves it only when its archive expired its keys:
// RunEngine.handOffEndedRuns, expireArchivedRun). Each sweep walks that index and, for every run
// that ended at least a grace ago (so the enqueue of a run that just ended is not raced), makes
// sure an archive job carries it:
//   - no job (never enqueued, lost, or removed on completion while the entry outlived it): enqueue;
//   - a job that failed for good (PostgreSQL away for longer than its ~1 h of attempts) and has
//     been failed for FAILED_ARCHIVE_RETRY_AFTER_MS: a new round of attempts;
//   - any other state (waiting, delayed, active): nothing, the job is on its way.
// Every tool worker process offers to sweep; a Redis lock (reaper-lock.ts) lets one at a time.
import type { Logger } from 'pino';
import type { RunEngine } from '../engine/index.js';
import type { QueueShards } from '../jobs/queue-shards.js';
import { queuesOfRun } from './queues-of-run.js';
import { ReaperLock } from './reaper-lock.js';
import { LockedSweep } from './locked-sweep.js';

/** How long an archive job that failed for good waits before the sweep retries it: its own
 * attempts spanned about 34 minutes (ARCHIVE_JOB_OPTIONS), so PostgreSQL was away for that long. */
export const FAILED_ARCHIVE_RETRY_AFTER_MS = 3_600_000;

export interface ArchiveSweeperSettings {
  /** How often this process offers to sweep (ms); 0 = never. */
  intervalMs: number;
  /** How long after its end a run must still be unarchived before the sweep enqueues it (ms). */
  graceMs: number;
  /** Index entries read per round trip. */
  pageSize?: number;
}

export interface ArchiveSweeperContext {
  store: RunEngine;
  queues: QueueShards;
  logger: Logger;
}

/** What one sweep did, for the log and tests. */
export interface ArchiveSweepReport {
  skipped: 'locked' | null;
  /** Unarchived runs past the grace. */
  examined: number;
  enqueued: string[];
  retried: string[];
}

const emptyReport = (skipped: ArchiveSweepReport['skipped']): ArchiveSweepReport => ({ skipped, examined: 0, enqueued: [], retried: [] });

export class ArchiveSweeper {
  private readonly lock: ReaperLock;
  private readonly loop: LockedSweep<ArchiveSweepReport>;

  constructor(
    private readonly context: ArchiveSweeperContext,
    private readonly settings: ArchiveSweeperSettings,
  ) {
    // As the reaper's: long enough for a sweep of many pages (extended after each), short enough
    // that a process that died holding it delays the next sweep by at most two intervals.
    this.lock = new ReaperLock(context.store.redis, context.store.keys.archiveSweepLock(), Math.max(2 * settings.intervalMs, 1000));
    this.loop = new LockedSweep<ArchiveSweepReport>({
      lock: this.lock,
      intervalMs: settings.intervalMs,
      sweep: (now) => this.sweep(now),
      whenLocked: () => emptyReport('locked'),
      onReport: (report) => {
        if (report.enqueued.length > 0 || report.retried.length > 0) {
          this.context.logger.info(
            { event: 'archive-sweep', examined: report.examined, enqueued: report.enqueued.length, retried: report.retried.length },
            'archive sweep enqueued runs whose archive was missing',
          );
        }
      },
      onError: (error) => this.context.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'archive sweep failed'),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Stops sweeping; resolves once a sweep in progress has finished. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One sweep, if this process gets the lock. */
  sweepLocked(now = Date.now()): Promise<ArchiveSweepReport> {
    return this.loop.sweepLocked(now);
  }

  /** One sweep over the unarchived-run index (the caller holds the lock). */
  async sweep(now = Date.now()): Promise<ArchiveSweepReport> {
    const { store } = this.context;
    const report = emptyReport(null);
    let cursor = '0';
    do {
      const page = await store.scanUnarchivedRuns(cursor, this.settings.pageSize ?? 200);
      cursor = page.cursor;
      const due = page.runs.filter(({ endedAtMs }) => now - endedAtMs >= this.settings.graceMs);
      report.examined += due.length;
      await Promise.all(
        due.map(({ runId }) =>
          this.ensureArchiveJob(runId, now, report).catch((error: unknown) =>
            this.context.logger.error(
              { run_id: runId, err: error instanceof Error ? error.message : String(error) },
              'archive sweep could not look after a run',
            ),
          ),
        ),
      );
      // Two sweeps overlapping after a lost lock are harmless: a job id is one job per run.
      await this.lock.extend();
    } while (cursor !== '0');
    return report;
  }

  private async ensureArchiveJob(runId: string, now: number, report: ArchiveSweepReport): Promise<void> {
    const queues = await queuesOfRun(this.context, runId);
    // No record: nothing left to archive (an entry left behind when its keys expired): forgotten,
    // as the archive job would have done, so the sweep does not read it forever.
    if (!queues) {
      await this.context.store.forgetUnarchivedRun(runId);
      return;
    }
    const job = await queues.archiveJob(runId);
    if (job.state === 'unknown') {
      await queues.enqueueArchive(runId);
      report.enqueued.push(runId);
      return;
    }
    if (job.state === 'failed' && job.finishedOn !== null && now - job.finishedOn >= FAILED_ARCHIVE_RETRY_AFTER_MS) {
      if (await queues.retryFailedArchive(runId)) report.retried.push(runId);
    }
  }
}
