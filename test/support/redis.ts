// Each test file gets its own key and queue prefix on the suite's Redis (REDIS_URL, started by
// scripts/run-tests.ts), and removes its keys afterwards.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export function testRedisUrl(): string {
  const url = process.env.REDIS_URL;
  if (!url) throw new Error('REDIS_URL is not set: run the suite with `npm test`');
  return url;
}

export function uniquePrefix(label: string): string {
  return `t${label.replace(/[^a-z0-9]/gi, '').slice(0, 12)}${randomBytes(4).toString('hex')}`;
}

export function connectTestRedis(): Redis {
  return new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
}

/** Deletes every key of a prefix (run keys and queue keys). */
export async function deletePrefix(redis: Redis, prefix: string): Promise<void> {
  for (const pattern of [`${prefix}:*`, `{${prefix}}:*`]) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  }
}
