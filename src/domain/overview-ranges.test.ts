import { describe, expect, it } from 'vitest';
import { OVERVIEW_RANGES, OVERVIEW_RANGE_NAMES, overviewWindow } from './overview-ranges.js';

describe('overviewWindow', () => {
  it('ends with the bucket that holds now, its buckets on multiples of their width', () => {
    const now = new Date('2026-11-28T22:41:17.250Z');
    const window = overviewWindow({ range: '24h', now });
    expect(window.to.toISOString()).toBe('2026-11-28T23:00:00.000Z');
    expect(window.from.toISOString()).toBe('2026-11-27T23:00:00.000Z');
    expect(window.bucketStarts).toHaveLength(48);
    expect(window.bucketStarts.at(-1)!.toISOString()).toBe('2026-11-28T22:30:00.000Z');
  });

  it('cuts every range into its buckets, now inside the last one', () => {
    const now = new Date('2026-11-28T00:00:00.000Z');
    for (const range of OVERVIEW_RANGE_NAMES) {
      const window = overviewWindow({ range, now });
      const { bucketSeconds, buckets } = OVERVIEW_RANGES[range];
      expect(window.to.getTime() - window.from.getTime()).toBe(bucketSeconds * buckets * 1000);
      expect(window.bucketStarts.at(-1)!.getTime()).toBeLessThanOrEqual(now.getTime());
      expect(window.to.getTime()).toBeGreaterThan(now.getTime());
    }
  });
});
