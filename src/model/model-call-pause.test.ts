// The model pause on real Redis: extend-only, growing through an overload episode, reset by a
// successful call, and kept apart per provider identity and rate-limit class.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisClient } from '../redis/redis-connection.js';
import { connectTestRedis, deletePrefix, uniquePrefix } from '../../test/support/redis.js';
import { ModelCallPause, modelPauseTag, type ModelPauseScope } from './model-call-pause.js';

let redis: RedisClient;
const prefix = uniquePrefix('pause');
const scope: ModelPauseScope = { provider: 'anthropic', identity: 'key-0123456789abcdef', rateLimitClass: 'claude-sonnet-4' };
beforeAll(() => {
  redis = connectTestRedis();
});
afterAll(async () => {
  await deletePrefix(redis, `${prefix}a`);
  await deletePrefix(redis, `${prefix}b`);
  await deletePrefix(redis, `${prefix}c`);
  await deletePrefix(redis, `${prefix}d`);
  await deletePrefix(redis, `${prefix}e`);
  redis.disconnect();
});

describe('ModelCallPause', () => {
  it('only ever extends the pause', async () => {
    const pause = new ModelCallPause(redis, `${prefix}a`, { overloadBaseMs: 1000, overloadCapMs: 8000 });
    expect((await pause.check(scope)).remainingMs).toBe(0);
    const set = await pause.pause(scope, 5000);
    expect(set.waitMs).toBe(5000);
    // A shorter retry-after seen later keeps the longer pause, ending where it did (Redis's clock).
    const kept = await pause.pause(scope, 100);
    expect(kept.waitMs).toBeGreaterThan(4000);
    expect(Math.abs(kept.atMs + kept.waitMs - (set.atMs + set.waitMs))).toBeLessThanOrEqual(2);
    expect((await pause.check(scope)).remainingMs).toBeGreaterThan(4000);
    expect(await pause.reason(scope)).toBe('rate_limited');
    await redis.del(pause.keysOf(scope).pauseKey);
  });

  it('grows the overload pause step by step, keeps it within a wave, and starts again after a success', async () => {
    const pause = new ModelCallPause(redis, `${prefix}b`, { overloadBaseMs: 1000, overloadCapMs: 3000 });
    expect(await pause.overloaded(scope)).toMatchObject({ waitMs: 1000, step: 1 });
    // Another call of the same wave, failing while the pause is in force: no growth.
    const sameWave = await pause.overloaded(scope);
    expect(sameWave.step).toBe(1);
    expect(sameWave.waitMs).toBeLessThanOrEqual(1000);
    // The pause passed (expired here without waiting) and the API is still overloaded.
    await redis.del(pause.keysOf(scope).pauseKey);
    expect(await pause.overloaded(scope)).toMatchObject({ waitMs: 2000, step: 2 });
    await redis.del(pause.keysOf(scope).pauseKey);
    expect(await pause.overloaded(scope)).toMatchObject({ waitMs: 3000, step: 3 });
    await redis.del(pause.keysOf(scope).pauseKey);
    expect(await pause.overloaded(scope)).toMatchObject({ waitMs: 3000, step: 4 });
    expect(await pause.reason(scope)).toBe('overloaded');
    await redis.del(pause.keysOf(scope).pauseKey);
    await pause.succeeded(scope, Date.now() + 1);
    expect(await pause.overloaded(scope)).toMatchObject({ waitMs: 1000, step: 1 });
  });

  it('lets only a call sent after the latest overload end the episode', async () => {
    const pause = new ModelCallPause(redis, `${prefix}c`, { overloadBaseMs: 1000, overloadCapMs: 8000 });
    const episodeStart = Date.now();
    // A long answer sent before the episode began finishes in the middle of it: the API is still
    // overloaded for new calls, so the pause keeps growing.
    const longAnswerSentAt = episodeStart - 60_000;
    expect(await pause.overloaded(scope, episodeStart)).toMatchObject({ waitMs: 1000, step: 1 });
    await redis.del(pause.keysOf(scope).pauseKey);
    expect(await pause.overloaded(scope, episodeStart + 1000)).toMatchObject({ waitMs: 2000, step: 2 });
    expect(await pause.succeeded(scope, longAnswerSentAt)).toBe(false);
    // A call that went out after the last overload, before it: still the same episode.
    expect(await pause.succeeded(scope, episodeStart + 500)).toBe(false);
    await redis.del(pause.keysOf(scope).pauseKey);
    expect(await pause.overloaded(scope, episodeStart + 3000)).toMatchObject({ waitMs: 4000, step: 3 });
    // A call sent after the latest overload answered: the episode is over.
    expect(await pause.succeeded(scope, episodeStart + 3001)).toBe(true);
    await redis.del(pause.keysOf(scope).pauseKey);
    expect(await pause.overloaded(scope, episodeStart + 8000)).toMatchObject({ waitMs: 1000, step: 1 });
    // Nothing to end when no episode is going on.
    await redis.del(pause.keysOf(scope).episodeKey);
    expect(await pause.succeeded(scope, Date.now())).toBe(false);
  });

  it("tells when the pause holds and when a check ran, both on Redis's clock", async () => {
    const pause = new ModelCallPause(redis, `${prefix}d`, { overloadBaseMs: 1000, overloadCapMs: 8000 });
    const redisNowMs = async () => {
      const [seconds, micros] = await redis.time();
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    };
    const before = await redisNowMs();
    const set = await pause.overloaded(scope);
    const after = await redisNowMs();
    expect(set.atMs).toBeGreaterThanOrEqual(before);
    expect(set.atMs).toBeLessThanOrEqual(after);
    // A check inside the pause: its clock reading and the remaining pause meet at the pause's end.
    const inside = await pause.check(scope);
    expect(inside.atMs).toBeGreaterThanOrEqual(set.atMs);
    expect(inside.remainingMs).toBeGreaterThan(0);
    expect(Math.abs(inside.atMs + inside.remainingMs - (set.atMs + set.waitMs))).toBeLessThanOrEqual(2);
    // A wave's second overload reports the same end.
    const again = await pause.overloaded(scope);
    expect(Math.abs(again.atMs + again.waitMs - (set.atMs + set.waitMs))).toBeLessThanOrEqual(2);
    await redis.del(pause.keysOf(scope).pauseKey);
    const outside = await pause.check(scope);
    expect(outside.remainingMs).toBe(0);
    expect(outside.atMs).toBeGreaterThanOrEqual(inside.atMs);
  });

  it('pauses one provider identity and rate-limit class, and no other', async () => {
    const pause = new ModelCallPause(redis, `${prefix}e`, { overloadBaseMs: 1000, overloadCapMs: 8000 });
    const otherClass = { ...scope, rateLimitClass: 'claude-opus-4' };
    const otherIdentity = { ...scope, identity: 'key-fedcba9876543210' };
    const otherProvider = { ...scope, provider: 'second' };
    await pause.pause(scope, 5000);
    expect(await pause.overloaded(otherClass)).toMatchObject({ waitMs: 1000, step: 1 });
    expect((await pause.check(scope)).remainingMs).toBeGreaterThan(4000);
    expect(await pause.check(otherClass)).toMatchObject({ overloadEpisode: true });
    expect((await pause.check(otherClass)).remainingMs).toBeLessThanOrEqual(1000);
    for (const free of [otherIdentity, otherProvider]) expect(await pause.check(free)).toMatchObject({ remainingMs: 0, overloadEpisode: false });
    // The rate-limited scope's episode is its own: the other class's overload did not start one here.
    expect((await pause.check(scope)).overloadEpisode).toBe(false);
    expect(await pause.reason(otherClass)).toBe('overloaded');
    expect(await pause.reason(otherIdentity)).toBeNull();
  });

  it('keeps both keys of a scope under one bounded, safe hash tag', () => {
    const pause = new ModelCallPause(redis, `${prefix}e`, { overloadBaseMs: 1000, overloadCapMs: 8000 });
    // An operator's class may hold anything up to 100 characters (BUILDFLEET_MODEL_CAPABILITIES).
    const odd = { provider: 'vllm', identity: 'url-0123456789abcdef', rateLimitClass: `weird}{class: ${'x'.repeat(90)}` };
    const tag = modelPauseTag(odd);
    expect(tag).toMatch(/^[A-Za-z0-9._~:-]+$/);
    expect(tag.length).toBeLessThanOrEqual(140);
    // Cut and hashed: another class with the same cut keeps a tag of its own.
    expect(modelPauseTag({ ...odd, rateLimitClass: `weird{}class: ${'x'.repeat(90)}` })).not.toBe(tag);
    expect(modelPauseTag(scope)).toBe('model-pause:anthropic:key-0123456789abcdef:claude-sonnet-4');
    const { pauseKey, episodeKey } = pause.keysOf(odd);
    for (const key of [pauseKey, episodeKey]) {
      expect(key.match(/[{}]/g)).toEqual(['{', '}']);
      expect(key).toContain(`{${tag}}`);
    }
  });
});
