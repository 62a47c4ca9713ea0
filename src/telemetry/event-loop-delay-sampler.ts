// Event-loop delay as a Prometheus histogram, beside the default metrics' per-scrape gauges.
//
// prom-client's `nodejs_eventloop_lag_p99_seconds` is the p99 of the window since the previous
// scrape (prom-client 15 lib/metrics/eventLoopLag.js resets its monitorEventLoopDelay histogram on
// every collect), so the p99 over an hour, or over every worker of a role, cannot be computed from
// it: percentiles of windows do not add up. A histogram's bucket counts do (`histogram_quantile`
// over `rate(…_bucket)`), and a benchmark can take the p99 of exactly its window from two scrapes.
// The gauges also read the 10 ms sampling interval as delay (an idle loop shows ~10–12 ms); this
// records only the lateness: a 10 ms timer's wait beyond its 10 ms, measured as
// monitorEventLoopDelay measures it (the time between two firings) with the interval taken off.
// One timer per process, whatever the number of registries (tests build several in a process).
import type { Histogram } from 'prom-client';

export const EVENT_LOOP_DELAY_SAMPLE_MS = 10;
/** Seconds: fine where the fleet's targets are (50 ms), coarse where only stalls are. */
export const EVENT_LOOP_DELAY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const observers = new Set<Histogram>();
let timer: NodeJS.Timeout | null = null;
let last = 0;

function sample(): void {
  const now = performance.now();
  const lateMs = Math.max(0, now - last - EVENT_LOOP_DELAY_SAMPLE_MS);
  last = now;
  for (const histogram of observers) histogram.observe(lateMs / 1000);
}

/** Feeds `histogram` with this process's event-loop delay until the returned function is called. */
export function observeEventLoopDelay(histogram: Histogram): () => void {
  observers.add(histogram);
  if (!timer) {
    last = performance.now();
    timer = setInterval(sample, EVENT_LOOP_DELAY_SAMPLE_MS);
    // A sampler never keeps a process alive.
    timer.unref();
  }
  return () => {
    observers.delete(histogram);
    if (observers.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}
