// A dev fleet of separate processes for an e2e test file: its own key prefix on the suite's
// Redis, started before the file's tests and stopped (keys removed) after them.
import { SUITE_MODEL } from './suite-model.js';
import { afterAll, beforeAll } from 'vitest';
import { startDevFleet, type DevFleet } from '../../src/cli/dev-fleet.js';
import { connectTestRedis, deletePrefix, testRedisEnv, uniquePrefix } from './redis.js';

export interface DevFleetHandle {
  readonly prefix: string;
  readonly fleet: DevFleet;
}

export function useDevFleet(options: { label: string; modelWorkers: number; toolWorkers: number; env?: Record<string, string> }): DevFleetHandle {
  const prefix = uniquePrefix(options.label);
  let fleet: DevFleet | undefined;
  beforeAll(async () => {
    fleet = await startDevFleet({
      // LOG_LEVEL info: the fleet waits for each worker's "worker started" log line.
      env: { ...testRedisEnv(), BUILDFLEET_MODEL: SUITE_MODEL, BUILDFLEET_PREFIX: prefix, LOG_LEVEL: 'info', ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: '', ...options.env },
      modelWorkers: options.modelWorkers,
      toolWorkers: options.toolWorkers,
      writeStateFile: false,
    });
  }, 60_000);
  afterAll(async () => {
    await fleet?.stop();
    const redis = connectTestRedis();
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });
  return {
    prefix,
    get fleet() {
      if (!fleet) throw new Error('the dev fleet has not started');
      return fleet;
    },
  };
}
