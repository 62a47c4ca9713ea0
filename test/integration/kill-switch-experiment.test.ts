// The kill switch experiment, small, both cases. The tenant case: one tenant's spike trips its
// scope alone and the other tenants build with every write. The fleet-wide case: builds and
// direct tool load of four tenants on a faulty upstream that breaks after half a second; the fleet
// trips and every bound of the seed experiment holds.
import { describe, expect, it } from 'vitest';
import { runKillSwitchExperiment } from '../../src/cli/experiment-killswitch.js';
import { runTenantSpikeExperiment } from '../../src/cli/experiment-killswitch-tenant-spike.js';
import { testRedisUrl } from '../support/redis.js';

describe('experiment killswitch', () => {
  it("keeps one tenant's spike to that tenant", { timeout: 120_000 }, async () => {
    const report = await runTenantSpikeExperiment({ builds: 2, redisUrl: testRedisUrl() });
    expect(report.violations).toEqual([]);
    expect(report.trip?.scope).toBe('tenant:tenant-spiky');
    // Its two writes and the deploy were valid outputs: the 17th invalid fetch makes 20.
    expect(report.fetchesUntilTrip).toBe(17);
    expect(report.scopesTripped).toEqual(['tenant:tenant-spiky']);
    expect(report.fleetMode).toBe('read_write');
    expect(report.spikeWritesRefused).toBe(5);
    expect(report.spikeRefusal).toContain('The kill switch of tenant "tenant-spiky" is read_only');
    expect(report.buildStatuses).toEqual({ succeeded: 2 });
    expect(report.otherWritesRefusedByKillSwitch).toBe(0);
    expect(report.otherWritesLandedAfterTrip).toBe(report.otherWritesLanded);
  });

  it('trips the fleet on a fleet-wide spike, refuses every write from the trip on, and writes again after the reset', { timeout: 90_000 }, async () => {
    const report = await runKillSwitchExperiment({
      runs: 6,
      imagesPerRun: 2,
      flipAfterMs: 500,
      loadRunsPerSecond: 40,
      redisUrl: testRedisUrl(),
      env: { BUILDFLEET_KILLSWITCH_WINDOW_MS: '10000' },
    });
    expect(report.violations).toEqual([]);
    expect(report.tenants).toBe(4);
    expect(report.tripped).toBe(true);
    expect(report.trip?.cause).toMatch(/^(upstream|tenants)$/);
    expect(report.trip?.tenants).toBeGreaterThanOrEqual(3);
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
