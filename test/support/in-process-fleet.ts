// The in-process fleet on the suite's Redis, with a prefix of its own per test file.
import { startInProcessFleet as startFleet, type InProcessFleet, type InProcessFleetOptions } from '../../src/dev/in-process-fleet.js';
import { isCluster } from '../../src/redis/redis-connection.js';
import { testRedisEnv, testRedisUrl, uniquePrefix } from './redis.js';
import { SUITE_MODEL } from './suite-model.js';

export type { InProcessFleet };

export async function startInProcessFleet(options: Omit<InProcessFleetOptions, 'redisUrl' | 'prefix'> & { label: string }): Promise<InProcessFleet> {
  const { label, ...rest } = options;
  const { REDIS_URL: _url, ...cluster } = testRedisEnv();
  const fleet = await startFleet({ ...rest, env: { BUILDFLEET_MODEL: SUITE_MODEL, ...cluster, ...rest.env }, redisUrl: testRedisUrl(), prefix: uniquePrefix(label) });
  // In the cluster pass a fleet on the single server would pass its tests there and prove nothing
  // about the cluster: refused rather than silently run.
  if (process.env.BUILDFLEET_REDIS_CLUSTER_NODES && !isCluster(fleet.fleet.redis)) {
    await fleet.close();
    throw new Error(`the fleet of ${label} runs on one server in the Redis Cluster pass: its env overrides BUILDFLEET_REDIS_CLUSTER_NODES`);
  }
  return fleet;
}
