// The crash experiment in cluster mode, small: four runs on a local 3+3 Redis Cluster of its own
// while a primary is SIGKILLed (its replica promoted) and restarted, another failed over by hand,
// and worker processes are killed. Every run finishes, no effect is duplicated, and any write a
// primary acknowledged and the failover lost was written again by the fleet.
import { describe, expect, it } from 'vitest';
import { runCrashExperiment } from '../../src/cli/experiment-crash.js';

describe('experiment crash --cluster', () => {
  it('loses no run and duplicates no effect across primary failovers', { timeout: 600_000 }, async () => {
    const result = await runCrashExperiment({ runs: 4, cluster: true, killIntervalMs: { min: 400, max: 1500 }, timeoutMs: 400_000 });
    expect(result.failed).toEqual([]);
    expect(result.lost).toBe(0);
    expect(result.finished).toBe(4);
    expect(result.effects.duplicates).toEqual([]);
    expect(result.duplicatedEffects).toBe(0);
    expect(result.effects.deployments).toBeGreaterThan(0);
    expect(result.redisRestarts).toBe(0);
    expect(result.waitReplicas).toBe(1);
    const kill = result.failovers.find((failover) => failover.kind === 'kill');
    expect(kill).toBeDefined();
    expect(kill!.promotedPort).not.toBe(kill!.primaryPort);
    expect(kill!.tookMs).toBeGreaterThan(0);
    expect(kill!.rejoinMs).toBeGreaterThan(0);
    // During the builds, not after them.
    expect(kill!.runsInFlight).toBeGreaterThan(0);
    expect(result.acknowledgedWrites).not.toBeNull();
    expect(result.acknowledgedWrites!.observed).toBeGreaterThan(0);
    expect(result.acknowledgedWrites!.unrepaired).toEqual([]);
  });
});
