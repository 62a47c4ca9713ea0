// Each test file gets its own key and queue prefix on the suite's Redis (REDIS_URL, started by
// scripts/run-tests.ts), and removes its keys afterwards.
import { randomBytes } from 'node:crypto';
import { parseClusterSeeds } from '../../src/domain/redis-target.js';
import { connectRedis, type RedisClient } from '../../src/redis/redis-connection.js';
import { unlinkKeysMatching } from '../../src/redis/redis-scan.js';
import { keyPatternsOfPrefix } from '../../src/domain/queue-shards.js';

export function testRedisUrl(): string {
  const url = process.env.REDIS_URL;
  if (!url) throw new Error('REDIS_URL is not set: run the suite with `npm test`');
  return url;
}

/** The suite's Redis as fleet environment: REDIS_URL, and the cluster's seeds in the cluster pass. */
export function testRedisEnv(): { REDIS_URL: string; BUILDFLEET_REDIS_CLUSTER_NODES?: string } {
  const seeds = process.env.BUILDFLEET_REDIS_CLUSTER_NODES;
  return { REDIS_URL: testRedisUrl(), ...(seeds ? { BUILDFLEET_REDIS_CLUSTER_NODES: seeds } : {}) };
}

export function uniquePrefix(label: string): string {
  return `t${label.replace(/[^a-z0-9]/gi, '').slice(0, 12)}${randomBytes(4).toString('hex')}`;
}

/** The suite's Redis: the cluster when BUILDFLEET_REDIS_CLUSTER_NODES is set (the cluster pass of
 * scripts/run-tests.ts), else the server at REDIS_URL. */
export function connectTestRedis(): RedisClient {
  const seeds = process.env.BUILDFLEET_REDIS_CLUSTER_NODES;
  return connectRedis(seeds ? parseClusterSeeds(seeds) : testRedisUrl(), 'worker');
}

/** Deletes every key of a prefix (run keys and queue keys). */
export async function deletePrefix(redis: RedisClient, prefix: string): Promise<void> {
  for (const pattern of keyPatternsOfPrefix(prefix)) await unlinkKeysMatching(redis, pattern);
}
