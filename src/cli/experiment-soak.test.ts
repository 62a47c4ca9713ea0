// The soak experiment's verdict (issue #32 item 6): a healthy archived half passes whether its
// Redis grew a little or shrank in the late half; growth over the share, a lost run or a run left
// in Redis fails it.
import { describe, expect, it } from 'vitest';
import { soakBoundsHeld } from './experiment-soak.js';

const KB = 1024;
/** The keys-kept half of the run the issue quotes: 148 KB per run in its late half. */
const keysKept = { unfinished: 0, succeeded: 40, submitFailures: 0, lostFromHistory: 0, stillInRedis: 0, maxmemoryBytes: null, peakBytes: 64.9e6, bytesPerRunLateHalf: 148 * KB };
/** A healthy archived half: 0 lost, 0 left, peak 24.2 MB under its 33.3 MB cap. */
const healthy = { unfinished: 0, succeeded: 40, submitFailures: 0, lostFromHistory: 0, stillInRedis: 0, maxmemoryBytes: 33.3e6, peakBytes: 24.2e6, bytesPerRunLateHalf: 1 * KB };

describe('the soak verdict', () => {
  it('holds for an archived half whose Redis shrank more per run than the flat bound', () => {
    expect(soakBoundsHeld(keysKept, { ...healthy, bytesPerRunLateHalf: -14.9 * KB })).toBe(true);
  });

  it('holds for growth under a tenth of the keys-kept half, and fails past it', () => {
    expect(soakBoundsHeld(keysKept, { ...healthy, bytesPerRunLateHalf: 14.7 * KB })).toBe(true);
    expect(soakBoundsHeld(keysKept, { ...healthy, bytesPerRunLateHalf: 14.9 * KB })).toBe(false);
  });

  it('fails on a run lost from history, left in Redis, unfinished, or a peak over the cap', () => {
    expect(soakBoundsHeld(keysKept, { ...healthy, lostFromHistory: 1 })).toBe(false);
    expect(soakBoundsHeld(keysKept, { ...healthy, stillInRedis: 1 })).toBe(false);
    expect(soakBoundsHeld(keysKept, { ...healthy, unfinished: 1 })).toBe(false);
    expect(soakBoundsHeld(keysKept, { ...healthy, peakBytes: 34e6 })).toBe(false);
    expect(soakBoundsHeld(keysKept, { ...healthy, maxmemoryBytes: null })).toBe(false);
  });
});
