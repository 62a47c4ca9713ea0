// How many jobs a worker process takes at once, governed by its own event-loop delay.
//
// A fixed concurrency is a guess that is wrong both ways: at 1–3 s model latency a model worker
// needs hundreds of turns in flight to use a core, and once the core is full every further job
// only lengthens the queue of ready callbacks — the loop delay then grows without bound (the
// issue-17 bench: 10,000 turns in one process, p99 12.8 s), stream watchdogs and BullMQ's lock
// renewals run late, and nothing finishes sooner. So the configured concurrency is a ceiling, and
// this governor moves the worker's actual concurrency under it: it measures the loop delay's p99
// over each interval (perf_hooks.monitorEventLoopDelay) and cuts concurrency by a quarter when the
// p99 is over the target, raises it by a quarter when the p99 is under 60% of it and the worker
// was using all it had (additive-increase would take minutes to climb to a thousand; a cut by a
// quarter each interval reaches the floor from a thousand in ~20 s). The delay is measured as
// prom-client measures `buildfleet_process_nodejs_eventloop_lag_p99_seconds` (same histogram, 10 ms
// resolution, which an idle loop reads as ~10–12 ms), so the target compares with the metric a user
// sees. BullMQ reads
// `worker.concurrency` before every fetch (Worker.mainLoop), so a cut takes effect as running
// jobs finish — nothing running is interrupted.
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface GovernedWorker {
  concurrency: number;
}

export interface ConcurrencyChange {
  from: number;
  to: number;
  delayP99Ms: number;
}

export interface ConcurrencyGovernorOptions {
  /** The configured concurrency: never exceeded. */
  ceiling: number;
  /** Loop-delay p99 the governor keeps the process under, in ms; 0 turns the governor off
   * (the worker runs at the ceiling). */
  targetDelayMs: number;
  /** Never fewer than this many jobs at once (capped by the ceiling). */
  floor?: number;
  /** Where a governed worker starts (capped by the ceiling). */
  initial?: number;
  intervalMs?: number;
  /** Every change, for the log and the metric. */
  onChange?: (change: ConcurrencyChange) => void;
}

const GOVERNOR_DEFAULTS = { floor: 4, initial: 32, intervalMs: 1000 } as const;

/** The next concurrency from one interval's measurements (pure, so it is tested without time). */
export function nextConcurrency(input: {
  current: number;
  ceiling: number;
  floor: number;
  targetDelayMs: number;
  delayP99Ms: number;
  peakActive: number;
}): number {
  const floor = Math.min(input.floor, input.ceiling);
  if (input.delayP99Ms > input.targetDelayMs) return Math.max(floor, Math.floor(input.current * 0.75));
  const saturated = input.peakActive >= input.current;
  if (saturated && input.delayP99Ms <= input.targetDelayMs * 0.6) return Math.min(input.ceiling, input.current + Math.max(1, Math.ceil(input.current / 4)));
  return Math.max(floor, Math.min(input.ceiling, input.current));
}

export class ConcurrencyGovernor {
  private histogram: ReturnType<typeof monitorEventLoopDelay> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private worker: GovernedWorker | null = null;
  private active = 0;
  private peakActive = 0;
  /** Where the worker starts: pass it to the Worker's constructor, then attach the worker. */
  readonly initialConcurrency: number;

  constructor(private readonly options: ConcurrencyGovernorOptions) {
    this.initialConcurrency =
      options.targetDelayMs > 0 ? Math.max(1, Math.min(options.ceiling, options.initial ?? GOVERNOR_DEFAULTS.initial)) : options.ceiling;
  }

  /** Starts governing (right after the Worker is constructed: its first fetch is asynchronous). */
  attach(worker: GovernedWorker): void {
    this.worker = worker;
    worker.concurrency = this.initialConcurrency;
    if (this.options.targetDelayMs <= 0 || this.timer) return;
    this.histogram = monitorEventLoopDelay({ resolution: 10 });
    this.histogram.enable();
    this.timer = setInterval(() => this.adjust(), this.options.intervalMs ?? GOVERNOR_DEFAULTS.intervalMs);
    this.timer.unref();
  }

  /** Wraps one job's processing, so the governor knows whether the worker used what it had. */
  async track<T>(work: () => Promise<T>): Promise<T> {
    this.active += 1;
    if (this.active > this.peakActive) this.peakActive = this.active;
    try {
      return await work();
    } finally {
      this.active -= 1;
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.histogram?.disable();
  }

  private adjust(): void {
    if (!this.histogram || !this.worker) return;
    // The histogram is in nanoseconds; an interval with no sample (a blocked loop cannot sample)
    // reads 0 — the next interval then sees the whole stall.
    const delayP99Ms = this.histogram.count > 0 ? this.histogram.percentile(99) / 1e6 : 0;
    this.histogram.reset();
    const from = this.worker.concurrency;
    const to = nextConcurrency({
      current: from,
      ceiling: this.options.ceiling,
      floor: this.options.floor ?? GOVERNOR_DEFAULTS.floor,
      targetDelayMs: this.options.targetDelayMs,
      delayP99Ms,
      peakActive: this.peakActive,
    });
    this.peakActive = this.active;
    if (to !== from) {
      this.worker.concurrency = to;
      this.options.onChange?.({ from, to, delayP99Ms });
    }
  }
}
