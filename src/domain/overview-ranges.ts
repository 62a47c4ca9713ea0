// The time ranges of the fleet overview (GET /v1/overview?range=…, the console's range selector),
// each cut into buckets of a fixed width. Buckets start at multiples of their width since the epoch,
// so two requests in the same minute share their buckets and a chart's ticks fall on round times.
// No zod here: the run console's bundle imports this list.

export const OVERVIEW_RANGES = {
  '1h': { bucketSeconds: 60, buckets: 60, label: 'last hour' },
  '24h': { bucketSeconds: 30 * 60, buckets: 48, label: 'last 24 hours' },
  '7d': { bucketSeconds: 3 * 3600, buckets: 56, label: 'last 7 days' },
  '30d': { bucketSeconds: 24 * 3600, buckets: 30, label: 'last 30 days' },
} as const satisfies Record<string, { bucketSeconds: number; buckets: number; label: string }>;

export type OverviewRange = keyof typeof OVERVIEW_RANGES;
export const OVERVIEW_RANGE_NAMES = Object.keys(OVERVIEW_RANGES) as [OverviewRange, ...OverviewRange[]];
export const DEFAULT_OVERVIEW_RANGE: OverviewRange = '24h';

export interface OverviewWindow {
  /** The first bucket's start. */
  from: Date;
  /** The last bucket's end: the bucket holding `now` is the last. */
  to: Date;
  bucketSeconds: number;
  /** Each bucket's start, oldest first. */
  bucketStarts: Date[];
}

/** The buckets of `range` ending with the one that holds `now`. */
export function overviewWindow({ range, now }: { range: OverviewRange; now: Date }): OverviewWindow {
  const { bucketSeconds, buckets } = OVERVIEW_RANGES[range];
  const width = bucketSeconds * 1000;
  const end = (Math.floor(now.getTime() / width) + 1) * width;
  const start = end - buckets * width;
  return {
    from: new Date(start),
    to: new Date(end),
    bucketSeconds,
    bucketStarts: Array.from({ length: buckets }, (_, index) => new Date(start + index * width)),
  };
}
