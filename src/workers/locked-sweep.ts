// The loop the reaper and the archive sweep share: every interval, a sweep in one process of the
// fleet at a time (under a ReaperLock), and never two at once in this one; a failed sweep is
// reported and the next interval tries again.
import type { ReaperLock } from './reaper-lock.js';

export interface LockedSweepOptions<Report> {
  lock: ReaperLock;
  /** 0 or less: start() does nothing (sweepLocked still works, for tests and tools). */
  intervalMs: number;
  sweep(now: number): Promise<Report>;
  /** What a sweep that found the lock held by another process reports. */
  whenLocked(): Report;
  onReport?(report: Report): void;
  onError(error: unknown): void;
}

export class LockedSweep<Report> {
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;

  constructor(private readonly options: LockedSweepOptions<Report>) {}

  start(): void {
    if (this.timer || this.options.intervalMs <= 0) return;
    this.timer = setInterval(() => {
      if (this.sweeping) return;
      this.sweeping = this.sweepLocked()
        .then((report) => this.options.onReport?.(report))
        .catch((error: unknown) => this.options.onError(error))
        .finally(() => {
          this.sweeping = null;
        });
    }, this.options.intervalMs);
    this.timer.unref();
  }

  /** Stops sweeping; resolves once a sweep in progress has finished. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.sweeping;
  }

  /** One sweep, if this process gets the lock. */
  async sweepLocked(now = Date.now()): Promise<Report> {
    if (!(await this.options.lock.acquire())) return this.options.whenLocked();
    try {
      return await this.options.sweep(now);
    } finally {
      await this.options.lock.release();
    }
  }
}
