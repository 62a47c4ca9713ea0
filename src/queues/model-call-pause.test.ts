// The fleet-wide pause on real Redis: extend-only, growing through an overload episode, reset by a
// successful call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { connectTestRedis, deletePrefix, uniquePrefix } from '../../test/support/redis.js';
import { ModelCallPause } from './model-call-pause.js';

let redis: Redis;
const prefix = uniquePrefix('pause');
beforeAll(() => {
  redis = connectTestRedis();
});
afterAll(async () => {
  await deletePrefix(redis, `${prefix}a`);
  await deletePrefix(redis, `${prefix}b`);
  redis.disconnect();
});

describe('ModelCallPause', () => {
  it('only ever extends the pause', async () => {
    const pause = new ModelCallPause(redis, `${prefix}a`, { overloadBaseMs: 1000, overloadCapMs: 8000 });
    expect(await pause.remainingMs()).toBe(0);
    expect(await pause.pause(5000)).toBe(5000);
    // A shorter retry-after seen later keeps the longer pause.
    expect(await pause.pause(100)).toBeGreaterThan(4000);
    expect(await pause.remainingMs()).toBeGreaterThan(4000);
    expect(await pause.reason()).toBe('rate_limited');
    await redis.del(pause.pauseKey);
  });

  it('grows the overload pause step by step, keeps it within a wave, and starts again after a success', async () => {
    const pause = new ModelCallPause(redis, `${prefix}b`, { overloadBaseMs: 1000, overloadCapMs: 3000 });
    expect(await pause.overloaded()).toEqual({ waitMs: 1000, step: 1 });
    // Another call of the same wave, failing while the pause is in force: no growth.
    const sameWave = await pause.overloaded();
    expect(sameWave.step).toBe(1);
    expect(sameWave.waitMs).toBeLessThanOrEqual(1000);
    // The pause passed (expired here without waiting) and the API is still overloaded.
    await redis.del(pause.pauseKey);
    expect(await pause.overloaded()).toEqual({ waitMs: 2000, step: 2 });
    await redis.del(pause.pauseKey);
    expect(await pause.overloaded()).toEqual({ waitMs: 3000, step: 3 });
    await redis.del(pause.pauseKey);
    expect(await pause.overloaded()).toEqual({ waitMs: 3000, step: 4 });
    expect(await pause.reason()).toBe('overloaded');
    await redis.del(pause.pauseKey);
    await pause.succeeded();
    expect(await pause.overloaded()).toEqual({ waitMs: 1000, step: 1 });
  });
});
