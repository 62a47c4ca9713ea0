// The fleet-wide pause on real Redis: extend-only, growing through an overload episode, reset by a
// successful call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisClient } from '../redis/redis-connection.js';
import { connectTestRedis, deletePrefix, uniquePrefix } from '../../test/support/redis.js';
import { ModelCallPause } from './model-call-pause.js';

let redis: RedisClient;
const prefix = uniquePrefix('pause');
beforeAll(() => {
  redis = connectTestRedis();
});
afterAll(async () => {
  await deletePrefix(redis, `${prefix}a`);
  await deletePrefix(redis, `${prefix}b`);
  await deletePrefix(redis, `${prefix}c`);
  await deletePrefix(redis, `${prefix}d`);
  redis.disconnect();
});

describe('ModelCallPause', () => {
  it('only ever extends the pause', async () => {
    const pause = new ModelCallPause(redis, `${prefix}a`, { overloadBaseMs: 1000, overloadCapMs: 8000 });
    expect((await pause.check()).remainingMs).toBe(0);
    expect(await pause.pause(5000)).toBe(5000);
    // A shorter retry-after seen later keeps the longer pause.
    expect(await pause.pause(100)).toBeGreaterThan(4000);
    expect((await pause.check()).remainingMs).toBeGreaterThan(4000);
    expect(await pause.reason()).toBe('rate_limited');
    await redis.del(pause.pauseKey);
  });

  it('grows the overload pause step by step, keeps it within a wave, and starts again after a success', async () => {
    const pause = new ModelCallPause(redis, `${prefix}b`, { overloadBaseMs: 1000, overloadCapMs: 3000 });
    expect(await pause.overloaded()).toMatchObject({ waitMs: 1000, step: 1 });
    // Another call of the same wave, failing while the pause is in force: no growth.
    const sameWave = await pause.overloaded();
    expect(sameWave.step).toBe(1);
    expect(sameWave.waitMs).toBeLessThanOrEqual(1000);
    // The pause passed (expired here without waiting) and the API is still overloaded.
    await redis.del(pause.pauseKey);
    expect(await pause.overloaded()).toMatchObject({ waitMs: 2000, step: 2 });
    await redis.del(pause.pauseKey);
    expect(await pause.overloaded()).toMatchObject({ waitMs: 3000, step: 3 });
    await redis.del(pause.pauseKey);
    expect(await pause.overloaded()).toMatchObject({ waitMs: 3000, step: 4 });
    expect(await pause.reason()).toBe('overloaded');
    await redis.del(pause.pauseKey);
    await pause.succeeded(Date.now() + 1);
    expect(await pause.overloaded()).toMatchObject({ waitMs: 1000, step: 1 });
  });

  it('lets only a call sent after the latest overload end the episode', async () => {
    const pause = new ModelCallPause(redis, `${prefix}c`, { overloadBaseMs: 1000, overloadCapMs: 8000 });
    const episodeStart = Date.now();
    // A long answer sent before the episode began finishes in the middle of it: the API is still
    // overloaded for new calls, so the pause keeps growing.
    const longAnswerSentAt = episodeStart - 60_000;
    expect(await pause.overloaded(episodeStart)).toMatchObject({ waitMs: 1000, step: 1 });
    await redis.del(pause.pauseKey);
    expect(await pause.overloaded(episodeStart + 1000)).toMatchObject({ waitMs: 2000, step: 2 });
    expect(await pause.succeeded(longAnswerSentAt)).toBe(false);
    // A call that went out after the last overload, before it: still the same episode.
    expect(await pause.succeeded(episodeStart + 500)).toBe(false);
    await redis.del(pause.pauseKey);
    expect(await pause.overloaded(episodeStart + 3000)).toMatchObject({ waitMs: 4000, step: 3 });
    // A call sent after the latest overload answered: the episode is over.
    expect(await pause.succeeded(episodeStart + 3001)).toBe(true);
    await redis.del(pause.pauseKey);
    expect(await pause.overloaded(episodeStart + 8000)).toMatchObject({ waitMs: 1000, step: 1 });
    // Nothing to end when no episode is going on.
    await redis.del(pause.episodeKey);
    expect(await pause.succeeded(Date.now())).toBe(false);
  });

  it("tells when the pause holds and when a check ran, both on Redis's clock", async () => {
    const pause = new ModelCallPause(redis, `${prefix}d`, { overloadBaseMs: 1000, overloadCapMs: 8000 });
    const redisNowMs = async () => {
      const [seconds, micros] = await redis.time();
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    };
    const before = await redisNowMs();
    const set = await pause.overloaded();
    const after = await redisNowMs();
    expect(set.atMs).toBeGreaterThanOrEqual(before);
    expect(set.atMs).toBeLessThanOrEqual(after);
    // A check inside the pause: its clock reading and the remaining pause meet at the pause's end.
    const inside = await pause.check();
    expect(inside.atMs).toBeGreaterThanOrEqual(set.atMs);
    expect(inside.remainingMs).toBeGreaterThan(0);
    expect(Math.abs(inside.atMs + inside.remainingMs - (set.atMs + set.waitMs))).toBeLessThanOrEqual(2);
    // A wave's second overload reports the same end.
    const again = await pause.overloaded();
    expect(Math.abs(again.atMs + again.waitMs - (set.atMs + set.waitMs))).toBeLessThanOrEqual(2);
    await redis.del(pause.pauseKey);
    const outside = await pause.check();
    expect(outside.remainingMs).toBe(0);
    expect(outside.atMs).toBeGreaterThanOrEqual(inside.atMs);
  });
});
