// Every Redis key a run still has, found by SCAN (the tests' independent check of the engine's own
// list of a run's keys: runKeysOf in src/engine/run-engine.ts).
import type { Redis } from 'ioredis';
import type { KeySpace } from '../../src/engine/keys.js';

/** The run hash (when it exists) and every key under it. */
export async function runKeysLeft({ redis, keys, runId }: { redis: Redis; keys: KeySpace; runId: string }): Promise<string[]> {
  const runKey = keys.run(runId);
  const found = new Set<string>();
  let cursor = '0';
  do {
    const [next, page] = await redis.scan(cursor, 'MATCH', `${runKey}:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of page) found.add(key);
  } while (cursor !== '0');
  return [...((await redis.exists(runKey)) ? [runKey] : []), ...found];
}
