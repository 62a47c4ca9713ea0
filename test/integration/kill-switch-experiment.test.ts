// The kill switch experiment, small: builds through the simulator plus direct tool load on a
// faulty upstream that breaks after half a second. Every bound must hold.
import { describe, expect, it } from 'vitest';
import { runKillSwitchExperiment } from '../../src/cli/experiment-killswitch.js';
import { testRedisUrl } from '../support/redis.js';

describe('experiment killswitch', () => {
  it('trips, refuses every write from the trip on, and writes again after the reset', { timeout: 90_000 }, async () => {
    const report = await runKillSwitchExperiment({
      runs: 6,
      imagesPerRun: 2,
      flipAfterMs: 500,
      loadRunsPerSecond: 40,
      redisUrl: testRedisUrl(),
      env: { BUILDFLEET_KILLSWITCH_WINDOW_MS: '10000' },
    });
    expect(report.violations).toEqual([]);
    expect(report.tripped).toBe(true);
    expect(report.trip?.rate).toBeGreaterThanOrEqual(0.25);
    expect(report.trip?.total).toBeGreaterThanOrEqual(20);
    expect(report.writesLandedAfterTrip).toBe(0);
    expect(report.writesStartedAfterTrip).toBe(0);
    expect(report.lastWriteStartMsAfterTrip).toBeLessThan(1000);
    expect(report.writesLandedBeforeTrip).toBeGreaterThan(0);
    expect(report.writesRefusedByKillSwitch).toBeGreaterThan(0);
    expect(report.readsSucceededAfterTrip).toBeGreaterThan(0);
    expect(report.resetWriteSucceeded).toBe(true);
  });
});
