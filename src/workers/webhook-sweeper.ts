// The webhook sweep: every run end that owes a webhook delivery gets it enqueued even when the
// enqueue at its end was lost — the process died between the end and the enqueue, or Redis refused
// the job (docs/webhooks.md#guarantee). The durable record is the run's own `webhookOwed` field,
// written by the script that ended the run, and the engine's owed-webhook index, which the run
// enters as its end's bookkeeping (or through the reaper's hand-over) before it leaves the live-run
// index. Each sweep walks the index and, for every run that ended at least a grace ago (so the
// fast path of a run that just ended is not raced), enqueues what it owes (enqueueOwedWebhook: the
// delivery's deterministic job id makes a second enqueue of the same end a no-op), then drops the
// entry — only if its score is unchanged, so an end of a resumed run since keeps its entry. Entries
// of runs that owe nothing (enqueued already, no webhook) or have no record are dropped.
// Every tool worker process offers to sweep; a Redis lock (reaper-lock.ts) lets one at a time.
import type { Logger } from 'pino';
import { ZodError } from 'zod';
import type { WorkerFleet } from './worker-fleet.js';
import { ReaperLock } from './reaper-lock.js';
import { LockedSweep } from './locked-sweep.js';
import { enqueueOwedWebhook } from './enqueue-owed-webhook.js';

export interface WebhookSweeperSettings {
  /** How often this process offers to sweep (ms); 0 = never. */
  intervalMs: number;
  /** How long after its end a run's entry must still be there before the sweep takes it (ms). */
  graceMs: number;
  /** Index entries read per round trip. */
  pageSize?: number;
}

export type WebhookSweeperContext = Pick<WorkerFleet, 'store' | 'queues' | 'config'> & { logger: Logger };

/** What one sweep did, for the log and tests. */
export interface WebhookSweepReport {
  skipped: 'locked' | null;
  /** Entries past the grace. */
  examined: number;
  /** Runs whose owed delivery this sweep enqueued. */
  enqueued: string[];
  /** Runs whose owed delivery can never be built (its job does not validate): dropped, logged. */
  abandoned: string[];
  /** Entries dropped: nothing owed, or the run's record is gone. */
  dropped: number;
}

const emptyReport = (skipped: WebhookSweepReport['skipped']): WebhookSweepReport => ({ skipped, examined: 0, enqueued: [], abandoned: [], dropped: 0 });

export class WebhookSweeper {
  private readonly lock: ReaperLock;
  private readonly loop: LockedSweep<WebhookSweepReport>;

  constructor(
    private readonly context: WebhookSweeperContext,
    private readonly settings: WebhookSweeperSettings,
  ) {
    // As the archive sweep's: long enough for a sweep of many pages (extended after each), short
    // enough that a process that died holding it delays the next sweep by at most two intervals.
    this.lock = new ReaperLock(context.store.redis, context.store.keys.webhookSweepLock(), Math.max(2 * settings.intervalMs, 1000));
    this.loop = new LockedSweep<WebhookSweepReport>({
      lock: this.lock,
      intervalMs: settings.intervalMs,
      sweep: (now) => this.sweep(now),
      whenLocked: () => emptyReport('locked'),
      onReport: (report) => {
        if (report.enqueued.length > 0 || report.abandoned.length > 0) {
          this.context.logger.info(
            {
              event: 'webhook-sweep',
              examined: report.examined,
              enqueued: report.enqueued.length,
              abandoned: report.abandoned.length,
              dropped: report.dropped,
            },
            'webhook sweep enqueued deliveries whose enqueue was missing',
          );
        }
      },
      onError: (error) => this.context.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'webhook sweep failed'),
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
  sweepLocked(now = Date.now()): Promise<WebhookSweepReport> {
    return this.loop.sweepLocked(now);
  }

  /** One sweep over the owed-webhook index (the caller holds the lock). */
  async sweep(now = Date.now()): Promise<WebhookSweepReport> {
    const report = emptyReport(null);
    let cursor = '0';
    do {
      const page = await this.context.store.scanOwedWebhooks(cursor, this.settings.pageSize ?? 200);
      cursor = page.cursor;
      const due = page.runs.filter(({ endedAtMs }) => now - endedAtMs >= this.settings.graceMs);
      report.examined += due.length;
      await Promise.all(
        due.map((entry) =>
          this.settle(entry, report).catch((error: unknown) =>
            this.context.logger.error(
              { run_id: entry.runId, err: error instanceof Error ? error.message : String(error) },
              'webhook sweep could not enqueue a run end’s delivery; the next sweep tries again',
            ),
          ),
        ),
      );
      // Two sweeps overlapping after a lost lock are harmless: a delivery id is one job.
      await this.lock.extend();
    } while (cursor !== '0');
    return report;
  }

  private async settle(entry: { runId: string; score: string }, report: WebhookSweepReport): Promise<void> {
    const { store } = this.context;
    let outcome: Awaited<ReturnType<typeof enqueueOwedWebhook>>;
    try {
      outcome = await enqueueOwedWebhook(this.context, entry.runId);
    } catch (error) {
      // A delivery whose job does not validate never will: dropped with an error, not retried forever.
      if (!(error instanceof ZodError)) throw error;
      this.context.logger.error({ run_id: entry.runId, err: error.message }, 'webhook delivery owed by a run end cannot be built; abandoned');
      report.abandoned.push(entry.runId);
      const read = await store.readOwedWebhook(entry.runId);
      if (read?.owed) await store.settleOwedWebhook(entry.runId, read.owed);
      await store.forgetOwedWebhook(entry.runId, entry.score);
      return;
    }
    if (outcome === 'enqueued') report.enqueued.push(entry.runId);
    else report.dropped += 1;
    await store.forgetOwedWebhook(entry.runId, entry.score);
  }
}
