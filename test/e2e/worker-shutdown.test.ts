// Graceful shutdown and stalled-job recovery of real worker processes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createFleetContext, type FleetContext } from '../../src/fleet/fleet-context.js';
import { spawnRole, type SpawnedRole } from '../../src/cli/spawn-role.js';
import { submitRun } from '../../src/fleet/run-commands.js';
import { newRunId } from '../../src/engine/index.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/simulator-server.js';
import { deletePrefix, testRedisUrl, uniquePrefix } from '../support/redis.js';

const prefix = uniquePrefix('shutdown');
let simulator: RunningSimulator;
let fleet: FleetContext;
let env: NodeJS.ProcessEnv;
const spawned: SpawnedRole[] = [];

beforeAll(async () => {
  simulator = await startSimulator();
  env = {
    ...process.env,
    REDIS_URL: testRedisUrl(),
    BUILDFLEET_PREFIX: prefix,
    ANTHROPIC_BASE_URL: simulator.url,
    ANTHROPIC_API_KEY: '',
    BUILDFLEET_LOCK_DURATION_MS: '2000',
    BUILDFLEET_STALLED_INTERVAL_MS: '1000',
    BUILDFLEET_SHUTDOWN_TIMEOUT_MS: '10000',
    LOG_LEVEL: 'info',
  };
  fleet = createFleetContext(loadConfig({ REDIS_URL: testRedisUrl(), BUILDFLEET_PREFIX: prefix, LOG_LEVEL: 'silent' }), 'test');
});

afterAll(async () => {
  await Promise.allSettled(spawned.map((role) => role.stop('SIGKILL')));
  await simulator?.close();
  await deletePrefix(fleet.redis, prefix);
  await fleet?.close();
});

function startModelWorker(name: string): SpawnedRole {
  const role = spawnRole({ name, args: ['worker', 'model'], env });
  spawned.push(role);
  return role;
}

async function waitFor<T>(probe: () => Promise<T | undefined | null | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const requestsOf = (runId: string) => simulator.requests.filter((request) => request.headers['x-buildfleet-run-id'] === runId);

describe('worker processes', () => {
  it('finish the job in hand on SIGTERM, then exit 0', async () => {
    const worker = startModelWorker('model-graceful');
    await worker.waitForLine(/worker started/, 60_000);
    const runId = newRunId();
    simulator.faults.add({ kind: 'slow', delayMs: 1500, runId });
    await submitRun(fleet, { tenant: 'default', prompt: 'Build a site.', runId });
    await waitFor(async () => requestsOf(runId).length > 0, 10_000);
    const exitCode = await worker.stop('SIGTERM', 15_000);
    expect(exitCode).toBe(0);
    // The model answer was stored and the turn committed before the process left.
    const turn = await fleet.redis.hgetall(fleet.store.keys.turn(runId, 0));
    expect(turn.response).toBeDefined();
    expect(turn.outcome).toBeDefined();
    expect(requestsOf(runId)).toHaveLength(1);
  }, 90_000);

  it('hand a job cut off by SIGKILL to another worker once its lock expires', async () => {
    const first = startModelWorker('model-killed');
    await first.waitForLine(/worker started/, 60_000);
    const runId = newRunId();
    simulator.faults.add({ kind: 'slow', delayMs: 1500, runId });
    await submitRun(fleet, { tenant: 'default', prompt: 'Build a site.', runId });
    await waitFor(async () => requestsOf(runId).length > 0, 10_000);
    await first.stop('SIGKILL');
    const second = startModelWorker('model-takeover');
    await second.waitForLine(/worker started/, 60_000);
    const turn = await waitFor(async () => {
      const fields = await fleet.redis.hgetall(fleet.store.keys.turn(runId, 0));
      return fields.outcome ? fields : null;
    }, 20_000);
    expect(turn.claimedBy).toBe(`${runId}-turn-0`);
    // The killed call never answered the fleet; the takeover made the one that was stored.
    expect(requestsOf(runId).length).toBe(2);
    await second.stop('SIGTERM');
  }, 90_000);
});
