// The in-process fleet on the suite's Redis, with a prefix of its own per test file.
import { startInProcessFleet as startFleet, type InProcessFleet, type InProcessFleetOptions } from '../../src/dev/in-process-fleet.js';
import { testRedisEnv, testRedisUrl, uniquePrefix } from './redis.js';

export type { InProcessFleet };

export function startInProcessFleet(options: Omit<InProcessFleetOptions, 'redisUrl' | 'prefix'> & { label: string }): Promise<InProcessFleet> {
  const { label, ...rest } = options;
  const { REDIS_URL: _url, ...cluster } = testRedisEnv();
  return startFleet({ ...rest, env: { ...cluster, ...rest.env }, redisUrl: testRedisUrl(), prefix: uniquePrefix(label) });
}
