// Every Redis key a run still has, found by SCAN (the tests' independent check of the engine's own
// list of a run's keys: runKeysOf in src/engine/run-engine.ts).
import type { RedisClient } from '../../src/redis/redis-connection.js';
import { scanKeys } from '../../src/redis/redis-scan.js';
import type { KeySpace } from '../../src/engine/index.js';

/** The run hash (when it exists) and every key under it. */
export async function runKeysLeft({ redis, keys, runId }: { redis: RedisClient; keys: KeySpace; runId: string }): Promise<string[]> {
  const runKey = keys.run(runId);
  const found = new Set<string>();
  for await (const page of scanKeys(redis, `${runKey}:*`)) for (const key of page) found.add(key);
  return [...((await redis.exists(runKey)) ? [runKey] : []), ...found];
}
