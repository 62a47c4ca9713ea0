// Event-loop delay inside another fleet process, from its /metrics (prom-client default metrics).
//
// prom-client 15 (lib/metrics/eventLoopLag.js) keeps a perf_hooks monitorEventLoopDelay histogram
// and on every collect sets nodejs_eventloop_lag_{p50,p99,max,...}_seconds from it and then calls
// histogram.reset(): each scrape reports the window since the previous scrape. So the caller
// scrapes once before its window (to start a fresh one), then regularly, and takes the worst p99.
// The fleet registers them with a prefix (buildfleet_process_…); any prefix is accepted here.
//
// Histogram-free fallback: how long the process takes to answer the scrape. A blocked event loop
// answers late, so a slow scrape shows a stall even if the metric names change.

export interface LoopLagScrape {
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
  /** Wall time of the HTTP scrape itself. */
  scrapeMs: number;
  /** The worker's governed concurrency at the scrape (buildfleet_worker_concurrency), if exported. */
  concurrency: number | null;
  /** Cumulative counts of buildfleet_event_loop_delay_seconds by bucket bound (s; Infinity for
   * +Inf) since the process started, if exported: two scrapes give the whole window's
   * distribution, not only each 2 s window's p99. */
  delayBuckets: Array<{ le: number; count: number }> | null;
}

/** The event-loop delay over a whole window, from the histogram's buckets at its two ends. */
export interface WindowDelay {
  samples: number;
  /** p99, linearly interpolated inside its bucket (as Prometheus's histogram_quantile does). */
  p99Ms: number | null;
  /** Share of the 10 ms samples later than 50 ms (the bench's target): p99 ≤ 50 ms ⇔ ≤ 1 %. */
  shareOver50Ms: number | null;
}

export function windowDelay(opening: LoopLagScrape | undefined, closing: LoopLagScrape | undefined): WindowDelay | null {
  if (!opening?.delayBuckets || !closing?.delayBuckets) return null;
  const before = new Map(opening.delayBuckets.map((bucket) => [bucket.le, bucket.count]));
  const buckets = closing.delayBuckets.map((bucket) => ({ le: bucket.le, count: bucket.count - (before.get(bucket.le) ?? 0) })).sort((a, b) => a.le - b.le);
  const samples = buckets.at(-1)?.count ?? 0;
  if (samples === 0) return { samples, p99Ms: null, shareOver50Ms: null };
  const at50 = buckets.find((bucket) => bucket.le === 0.05);
  const rank = 0.99 * samples;
  let p99Ms: number | null = null;
  let lower = 0;
  let below = 0;
  for (const bucket of buckets) {
    if (bucket.count >= rank) {
      // Past the last finite bound there is nothing to interpolate towards: report that bound.
      p99Ms = Number.isFinite(bucket.le) ? (lower + ((bucket.le - lower) * (rank - below)) / Math.max(1, bucket.count - below)) * 1000 : lower * 1000;
      break;
    }
    lower = bucket.le;
    below = bucket.count;
  }
  return { samples, p99Ms, shareOver50Ms: at50 ? 1 - at50.count / samples : null };
}

function delayBuckets(text: string): LoopLagScrape['delayBuckets'] {
  const buckets: Array<{ le: number; count: number }> = [];
  for (const match of text.matchAll(/^buildfleet_event_loop_delay_seconds_bucket\{(?:[^}]*,)?le="([^"]+)"[^}]*\}\s+(\S+)/gm)) {
    buckets.push({ le: match[1] === '+Inf' ? Infinity : Number(match[1]), count: Number(match[2]) });
  }
  return buckets.length === 0 ? null : buckets;
}

export interface LoopLagSummary {
  scrapes: number;
  /** Median over the scrapes of each window's p50. */
  p50Ms: number | null;
  /** Worst window p99. */
  worstP99Ms: number | null;
  maxMs: number | null;
  /** Fallback: the slowest scrape answer. */
  worstScrapeMs: number | null;
  /** The governed concurrency over the scrapes: median and highest (null: not exported). */
  concurrencyMedian: number | null;
  concurrencyMax: number | null;
}

function gauge(text: string, name: 'p50' | 'p99' | 'max'): number | null {
  const match = new RegExp(`^\\S*nodejs_eventloop_lag_${name}_seconds(?:\\{[^}]*\\})?\\s+(\\S+)`, 'm').exec(text);
  if (!match) return null;
  const seconds = Number(match[1]);
  return Number.isFinite(seconds) ? seconds * 1000 : null;
}

/** One scrape of `metricsUrl` (…/metrics). Throws when the process does not answer in 30 s. */
export async function scrapeLoopLag({ metricsUrl }: { metricsUrl: string }): Promise<LoopLagScrape> {
  const started = performance.now();
  const response = await fetch(metricsUrl, { signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  const scrapeMs = performance.now() - started;
  if (!response.ok) throw new Error(`GET ${metricsUrl}: ${response.status}`);
  const concurrency = /^buildfleet_worker_concurrency(?:\{[^}]*\})?\s+(\S+)/m.exec(text);
  return { p50Ms: gauge(text, 'p50'), p99Ms: gauge(text, 'p99'), maxMs: gauge(text, 'max'), scrapeMs, concurrency: concurrency ? Number(concurrency[1]) : null, delayBuckets: delayBuckets(text) };
}

function maxOf(values: Array<number | null>): number | null {
  const present = values.filter((value): value is number => value !== null);
  return present.length === 0 ? null : Math.max(...present);
}

/** Summarises the scrapes taken during a window (not the one that opened it). */
export function summarizeLoopLag(scrapes: LoopLagScrape[]): LoopLagSummary {
  const median = (values: Array<number | null>) => {
    const present = values.filter((value): value is number => value !== null).sort((a, b) => a - b);
    return present.length === 0 ? null : present[Math.floor((present.length - 1) / 2)]!;
  };
  return {
    scrapes: scrapes.length,
    p50Ms: median(scrapes.map((scrape) => scrape.p50Ms)),
    concurrencyMedian: median(scrapes.map((scrape) => scrape.concurrency)),
    concurrencyMax: maxOf(scrapes.map((scrape) => scrape.concurrency)),
    worstP99Ms: maxOf(scrapes.map((scrape) => scrape.p99Ms)),
    maxMs: maxOf(scrapes.map((scrape) => scrape.maxMs)),
    worstScrapeMs: maxOf(scrapes.map((scrape) => scrape.scrapeMs)),
  };
}
