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

/** Waits until Redis holds no key of the run (its archive set them to expire); a failure names
 * each key left, its type and its TTL (-1: none, so a write after the expiry recreated it). */
export async function waitForRunKeysToExpire(target: { redis: RedisClient; keys: KeySpace; runId: string }, { timeoutMs = 30_000 } = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let left = await runKeysLeft(target); left.length > 0; left = await runKeysLeft(target)) {
    if (Date.now() > deadline) {
      const described = await Promise.all(left.map(async (key) => `${key} (${await target.redis.type(key)}, pttl ${await target.redis.pttl(key)})`));
      throw new Error(`the keys of ${target.runId} did not expire: ${described.join(', ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
