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
  return { p50Ms: gauge(text, 'p50'), p99Ms: gauge(text, 'p99'), maxMs: gauge(text, 'max'), scrapeMs, concurrency: concurrency ? Number(concurrency[1]) : null };
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
