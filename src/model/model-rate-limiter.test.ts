// The shared limiter on real Redis: two limiter clients on separate connections (two worker
// processes) share one set of buckets; interactive calls are booked first come, first served;
// batch calls keep the headroom; over-reservations come back at settle; a crashed worker's
// reservation expires; the API's headers correct the buckets — real headers, from the simulator
// through the real SDK. The limiter's clock is a test clock (Redis TIME otherwise), so every wait
// is asserted as a number, never by sleeping.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisClient } from '../redis/redis-connection.js';
import Anthropic from '@anthropic-ai/sdk';
import { connectTestRedis, deletePrefix, uniquePrefix } from '../../test/support/redis.js';
import { startSimulator, type RunningSimulator } from '../sim/simulator-server.js';
import { callModel } from './model-client.js';
import { ModelRateLimiter, limiterIdentity, type AdmissionProvider, type ModelRateLimiterSettings } from './model-rate-limiter.js';
import { readRateLimitHeaders } from './rate-limit-headers.js';

const prefix = uniquePrefix('admission');
let first: RedisClient;
let second: RedisClient;
beforeAll(() => {
  first = connectTestRedis();
  second = connectTestRedis();
});
afterAll(async () => {
  await deletePrefix(first, prefix);
  first.disconnect();
  second.disconnect();
});

/** A clock both clients read, moved by the test. */
function testClock(start = 1_700_000_000_000) {
  let now = start;
  return { read: () => now, advance: (ms: number) => void (now += ms) };
}

let identities = 0;
/** The provider of the latest pair's calls: the implicit one, with an identity of its own per pair. */
let provider: AdmissionProvider = { name: 'anthropic', identity: 'test-0' };
/** Two limiters over one state (two connections, as two processes would have), for calls through
 * a provider with a fresh identity. */
function pair(settings: Partial<ModelRateLimiterSettings> & { clock: () => number }) {
  identities += 1;
  provider = { name: 'anthropic', identity: `test-${identities}` };
  const full: ModelRateLimiterSettings = {
    limits: { requestsPerMinute: 0, inputTokensPerMinute: 60_000, outputTokensPerMinute: 0 },
    batchHeadroom: 0.25,
    reservationTtlMs: 600_000,
    bookingGraceMs: 30_000,
    ...settings,
  };
  return [new ModelRateLimiter(first, prefix, full), new ModelRateLimiter(second, prefix, full)] as const;
}

const call = (callId: string, inputTokens: number, extra: Partial<{ priority: 'interactive' | 'batch'; outputTokens: number; chainId: string; provider: AdmissionProvider }> = {}) => ({
  provider: extra.provider ?? provider,
  model: 'claude-sonnet-4-6',
  callId,
  chainId: extra.chainId ?? callId,
  priority: extra.priority ?? ('interactive' as const),
  inputTokens,
  outputTokens: extra.outputTokens ?? 1000,
});

describe('ModelRateLimiter', () => {
  it('is one set of buckets for every client: what one reserves, the other cannot', async () => {
    const clock = testClock();
    const [a, b] = pair({ clock: clock.read });
    // 60,000 input tokens per minute = 1,000 per second.
    expect((await a.reserve(call('a1', 40_000))).kind).toBe('go');
    const refused = await b.reserve(call('b1', 30_000));
    // 20,000 left, 10,000 short: ten seconds of refill, booked; it looks again after half of them.
    expect(refused).toMatchObject({ kind: 'wait', waitMs: 5000, limit: 'input_tokens', booked: true });
    expect(refused.buckets.inputTokens.available).toBe(-10_000);
    // A third call, from the first client, queues behind the booked one instead of taking its refill.
    const third = await a.reserve(call('a2', 5000));
    expect(third).toMatchObject({ kind: 'wait', waitMs: 7500, booked: true });
    // Looking again after 5 s: not repaid yet (nothing was given back), 5 s to go.
    clock.advance(5000);
    expect(await b.reserve(call('b1', 30_000))).toMatchObject({ kind: 'wait', waitMs: 2500, limit: 'booked' });
    // The second comes back on time and finds its slot; the third is still early.
    clock.advance(5000);
    expect((await b.reserve(call('b1', 30_000))).kind).toBe('go');
    expect(await a.reserve(call('a2', 5000))).toMatchObject({ kind: 'wait', waitMs: 2500, limit: 'booked' });
    clock.advance(5000);
    const claimed = await a.reserve(call('a2', 5000));
    expect(claimed.kind).toBe('go');
    expect(claimed.buckets.inputTokens.available).toBe(0);
  });

  it('lets a booked call go early once calls admitted before it gave back what they did not use', async () => {
    const clock = testClock();
    const [a, b] = pair({ clock: clock.read });
    const big = await a.reserve(call('big', 40_000));
    if (big.kind !== 'go') throw new Error('expected go');
    expect(await b.reserve(call('next', 30_000))).toMatchObject({ kind: 'wait', booked: true });
    const later = await b.reserve(call('later', 10_000));
    expect(later).toMatchObject({ kind: 'wait', booked: true });
    // The big call counted only 5,000 tokens: 35,000 come back, more than both bookings owe.
    await a.settleAnswer(big.reservation, { usage: { input_tokens: 5000, output_tokens: 10 }, headers: null, headersReceivedAt: null });
    expect((await b.reserve(call('later', 10_000))).kind).toBe('go');
    expect((await b.reserve(call('next', 30_000))).kind).toBe('go');
  });

  it('gives back what a call did not use, and takes what it used beyond its reservation', async () => {
    const clock = testClock();
    const [a, b] = pair({ clock: clock.read, limits: { requestsPerMinute: 10, inputTokensPerMinute: 60_000, outputTokensPerMinute: 20_000 } });
    const admitted = await a.reserve(call('x', 10_000, { outputTokens: 8000 }));
    if (admitted.kind !== 'go') throw new Error('expected go');
    expect(admitted.buckets).toMatchObject({ requests: { available: 9 }, inputTokens: { available: 50_000 }, outputTokens: { available: 12_000 } });
    // Settled by the other client: the API counted 6,000 input and 500 output tokens.
    const settled = await b.settleAnswer(admitted.reservation, { usage: { input_tokens: 6000, output_tokens: 500 }, headers: null, headersReceivedAt: null });
    expect(settled.settled).toBe('open');
    expect(settled.returned).toEqual({ requests: 0, inputTokens: 4000, outputTokens: 7500 });
    expect(settled.buckets).toMatchObject({ requests: { available: 9 }, inputTokens: { available: 54_000 }, outputTokens: { available: 19_500 } });
    // An estimate below the real count: the settle takes the difference.
    const low = await a.reserve(call('y', 1000, { outputTokens: 100 }));
    if (low.kind !== 'go') throw new Error('expected go');
    const over = await a.settleAnswer(low.reservation, { usage: { input_tokens: 3000, cache_write_5m_input_tokens: 500, output_tokens: 100 }, headers: null, headersReceivedAt: null });
    expect(over.buckets.inputTokens.available).toBe(54_000 - 3500);
  });

  it('settles a refused call as nothing spent, with its headers, and a call that may have run as spent', async () => {
    const clock = testClock();
    const [a] = pair({ clock: clock.read });
    const refused = await a.reserve(call('429', 10_000));
    if (refused.kind !== 'go') throw new Error('expected go');
    // A 429 whose headers say 5,000 input tokens remain (someone else spent them): everything
    // reserved comes back, then the bucket is lowered to what the API has.
    const after429 = await a.settleFailure(refused.reservation, {
      status: 429,
      headers: new Headers({ 'anthropic-ratelimit-input-tokens-limit': '60000', 'anthropic-ratelimit-input-tokens-remaining': '5000', 'retry-after': '55' }),
      errorType: 'rate_limit_error',
      message: 'This request would exceed your organization’s rate limit',
    });
    expect(after429.returned.inputTokens).toBe(10_000);
    expect(after429.buckets.inputTokens.available).toBe(5000);
    // A 500 (the call may have run): the reservation stays spent.
    clock.advance(60_000);
    const crashed = await a.reserve(call('500', 10_000));
    if (crashed.kind !== 'go') throw new Error('expected go');
    const after500 = await a.settleFailure(crashed.reservation, { status: 500, errorType: 'api_error', message: 'Internal server error' });
    expect(after500.returned.inputTokens).toBe(0);
    expect(after500.buckets.inputTokens.available).toBe(50_000);
  });

  it('lets a crashed worker’s reservation expire: its output estimate comes back, a late settle counts what was used', async () => {
    const clock = testClock();
    const [a, b] = pair({ clock: clock.read, reservationTtlMs: 10_000, limits: { requestsPerMinute: 0, inputTokensPerMinute: 600_000, outputTokensPerMinute: 60_000 } });
    // The worker reserves 50,000 output tokens (its max_tokens) and dies without settling.
    expect((await a.reserve(call('crashed', 1000, { outputTokens: 50_000 }))).kind).toBe('go');
    // 9 s on, 19,000 output tokens are there: not enough for a 30,000 batch call and its headroom.
    clock.advance(9000);
    expect(await b.reserve(call('batch', 1000, { outputTokens: 30_000, priority: 'batch' }))).toMatchObject({ kind: 'wait', limit: 'output_tokens', booked: false });
    // Past the reservation's lifetime the sweep gives its output estimate back: the bucket is full.
    clock.advance(2000);
    const afterExpiry = await b.reserve(call('fresh', 1000, { outputTokens: 30_000 }));
    expect(afterExpiry.kind).toBe('go');
    expect(afterExpiry.buckets.outputTokens.available).toBe(30_000);
    expect(await first.hget(b.keys(provider, 'claude-sonnet-4-6', 'crashed')[1], 'crashed')).toBeNull();
    // The crashed call's settle arrives after all (its worker was only slow): the 700 output
    // tokens it really used are taken now, and nothing is given back twice.
    const late = await a.settleAnswer(
      { provider, model: 'claude-sonnet-4-6', callId: 'crashed', chainId: 'crashed', priority: 'interactive', promptTokens: 1000, cache: null, requests: 1, inputTokens: 1000, outputTokens: 50_000 },
      { usage: { input_tokens: 1000, output_tokens: 700 }, headers: null, headersReceivedAt: null },
    );
    expect(late.settled).toBe('expired');
    expect(late.buckets.outputTokens.available).toBe(30_000 - 700);
  });

  it('treats an admitted reservation found under the same call id as an attempt that died, and starts again', async () => {
    const clock = testClock();
    const [a, b] = pair({ clock: clock.read, limits: { requestsPerMinute: 0, inputTokensPerMinute: 60_000, outputTokensPerMinute: 60_000 } });
    expect((await a.reserve(call('turn', 1000, { outputTokens: 50_000 }))).kind).toBe('go');
    // The job's retry, on another worker, reserves the same call again: the dead attempt's output
    // estimate comes back first, so the retry is not held up by its own corpse.
    const retried = await b.reserve(call('turn', 1000, { outputTokens: 50_000 }));
    expect(retried.kind).toBe('go');
    expect(retried.buckets.outputTokens.available).toBe(10_000);
  });

  it('admits interactive calls ahead of batch ones: batch keeps the headroom and never jumps a booking', async () => {
    const clock = testClock();
    const [a, b] = pair({ clock: clock.read, batchHeadroom: 0.25 });
    expect((await a.reserve(call('i1', 40_000))).kind).toBe('go');
    // 20,000 left: a 10,000 batch call would leave 10,000, under the 15,000 headroom.
    const batch = await b.reserve(call('b1', 10_000, { priority: 'batch' }));
    expect(batch).toMatchObject({ kind: 'wait', booked: false, limit: 'input_tokens', waitMs: 5000 });
    // The same call interactive goes at once.
    expect((await b.reserve(call('i2', 10_000))).kind).toBe('go');
    // 10,000 left. An interactive call of 20,000 books (10 s); the batch call, back after its
    // 5 s, finds the bucket owing the interactive one and waits again.
    expect(await a.reserve(call('i3', 20_000))).toMatchObject({ kind: 'wait', booked: true, waitMs: 5000 });
    clock.advance(5000);
    expect(await b.reserve(call('b1', 10_000, { priority: 'batch' }))).toMatchObject({ kind: 'wait', booked: false });
    clock.advance(5000);
    expect((await a.reserve(call('i3', 20_000))).kind).toBe('go');
    // Only once the bucket holds the batch call and the headroom does it go (25 s of refill).
    clock.advance(24_000);
    expect((await b.reserve(call('b1', 10_000, { priority: 'batch' }))).kind).toBe('wait');
    clock.advance(1000);
    expect((await b.reserve(call('b1', 10_000, { priority: 'batch' }))).kind).toBe('go');
  });

  it('keeps each provider’s buckets apart: two providers serving one model id learn their own limits', async () => {
    const clock = testClock();
    const [a, b] = pair({ clock: clock.read });
    const gpuOne: AdmissionProvider = { name: 'vllm-a', identity: provider.identity };
    const gpuTwo: AdmissionProvider = { name: 'vllm-b', identity: provider.identity };
    // 40,000 of each 60,000 bucket: the second provider's calls do not wait for the first's.
    const onOne = await a.reserve(call('one-1', 40_000, { provider: gpuOne }));
    if (onOne.kind !== 'go') throw new Error('expected go');
    expect((await b.reserve(call('two-1', 40_000, { provider: gpuTwo }))).kind).toBe('go');
    expect(await b.reserve(call('one-2', 30_000, { provider: gpuOne }))).toMatchObject({ kind: 'wait', limit: 'input_tokens' });
    // The first provider's answer says its limit is 30,000: only its buckets learn it.
    const settled = await a.settle(onOne.reservation, {
      counted: { requests: 1, inputTokens: 40_000, outputTokens: 10 },
      headers: { requests: { limit: null, remaining: null }, inputTokens: { limit: 30_000, remaining: 0 }, outputTokens: { limit: null, remaining: null } },
    });
    expect(settled.buckets.inputTokens).toMatchObject({ capacity: 30_000, source: 'api' });
    const onTwo = await a.reserve(call('two-2', 10_000, { provider: gpuTwo }));
    expect(onTwo).toMatchObject({ kind: 'go', reservation: { provider: gpuTwo } });
    expect(onTwo.buckets.inputTokens).toMatchObject({ capacity: 60_000, available: 10_000, source: 'seed' });
    // The same name with another identity (its key or URL changed) starts afresh too.
    expect((await a.reserve(call('one-3', 40_000, { provider: { name: 'vllm-a', identity: 'another-key' } }))).kind).toBe('go');
  });

  it('names each provider’s buckets by provider, identity and model', async () => {
    const clock = testClock();
    const [a] = pair({ clock: clock.read });
    expect(a.keys({ name: 'anthropic', identity: 'key-0123456789abcdef' }, 'claude-sonnet-4-6', 'run-1')[0]).toBe(`${prefix}:{admission:anthropic:key-0123456789abcdef:claude-sonnet-4-6}:buckets`);
    expect(a.keys({ name: 'vllm', identity: 'url-0123456789abcdef' }, 'Qwen/Qwen2.5', 'run-1')[0]).toBe(`${prefix}:{admission:vllm:url-0123456789abcdef:Qwen_Qwen2.5}:buckets`);
    expect((await a.reserve(call('first', 10_000))).kind).toBe('go');
    expect(await first.exists(`${prefix}:{admission:${provider.name}:${provider.identity}:claude-sonnet-4-6}:buckets`)).toBe(1);
  });

  it('admits a call larger than a whole bucket once the bucket is full, instead of never', async () => {
    const clock = testClock();
    const [a] = pair({ clock: clock.read });
    const huge = await a.reserve(call('huge', 90_000));
    expect(huge.kind).toBe('go');
    expect(huge.buckets.inputTokens.available).toBe(-30_000);
  });

  it('reserves only what the prompt cache is not expected to hold: the run’s previous call, else its phase’s tools and system', async () => {
    const clock = testClock();
    const [a] = pair({ clock: clock.read, limits: { requestsPerMinute: 0, inputTokensPerMinute: 600_000, outputTokensPerMinute: 0 } });
    const hint = (scope: string, prefixScope = 'tools-and-system-of-planning') => ({ scope, prefixScope, prefixTokens: 3000 });
    const reserve = async (callId: string, chainId: string, inputTokens: number, cache: ReturnType<typeof hint>) => {
      const decision = await a.reserve({ ...call(callId, inputTokens, { chainId }), cache });
      if (decision.kind !== 'go') throw new Error('expected go');
      return decision.reservation;
    };
    const settle = (reservation: Awaited<ReturnType<typeof reserve>>, usage: { input_tokens: number; output_tokens: number; cache_write_5m_input_tokens?: number; cache_read_input_tokens?: number }) =>
      a.settleAnswer(reservation, { usage, headers: null, headersReceivedAt: null });
    // A run's first call, nothing known of the cache: the whole prompt.
    const one = await reserve('run-1:1', 'run-1', 8000, hint('planning-tool'));
    expect(one.inputTokens).toBe(8000);
    await settle(one, { input_tokens: 100, cache_write_5m_input_tokens: 7000, output_tokens: 50 });
    // The answer wrote the cache: the run's next call with the same scope reserves its new part only.
    const two = await reserve('run-1:2', 'run-1', 9500, hint('planning-tool'));
    expect(two).toMatchObject({ inputTokens: 1500, promptTokens: 9500 });
    await settle(two, { input_tokens: 80, cache_read_input_tokens: 7000, cache_write_5m_input_tokens: 900, output_tokens: 50 });
    // That answer read from the cache, so the phase's tools and system are there: another run's
    // first call reserves what lies beyond them, and so does a call whose tool_choice changed.
    expect((await reserve('run-2:1', 'run-2', 5000, hint('planning-tool'))).inputTokens).toBe(2000);
    const three = await reserve('run-1:3', 'run-1', 9800, hint('planning-auto'));
    expect(three.inputTokens).toBe(6800);
    await settle(three, { input_tokens: 8000, output_tokens: 50 });
    // Another phase (other tools): the whole prompt. And an answer without cache activity
    // (caching off) forgets the run's chain.
    expect((await reserve('run-1:4', 'run-1', 9900, hint('building-auto', 'tools-and-system-of-building'))).inputTokens).toBe(9900);
    expect((await reserve('run-1:5', 'run-1', 9950, hint('planning-auto'))).inputTokens).toBe(6950);
    // Five minutes later the cache has expired: the whole prompt again.
    clock.advance(300_001);
    expect((await reserve('run-3:1', 'run-3', 5000, hint('planning-tool'))).inputTokens).toBe(5000);
  });

  it('learns unknown limits from the first answer’s headers and enforces them from then on', async () => {
    const clock = testClock();
    const [a] = pair({ clock: clock.read, limits: { requestsPerMinute: 0, inputTokensPerMinute: 0, outputTokensPerMinute: 0 } });
    const open = await a.reserve(call('u1', 50_000));
    if (open.kind !== 'go') throw new Error('expected go');
    expect(open.buckets.inputTokens.capacity).toBe(0);
    const settled = await a.settleAnswer(open.reservation, {
      usage: { input_tokens: 50_000, output_tokens: 200 },
      headers: new Headers({
        'anthropic-ratelimit-input-tokens-limit': '60000',
        'anthropic-ratelimit-input-tokens-remaining': '10000',
        'anthropic-ratelimit-output-tokens-limit': '16000',
        'anthropic-ratelimit-output-tokens-remaining': '15000',
      }),
      headersReceivedAt: clock.read(),
      now: clock.read(),
    });
    expect(settled.corrected).toBe(2);
    expect(settled.buckets.inputTokens).toEqual({ capacity: 60_000, available: 10_000, source: 'api' });
    // Output: the API had max_tokens (1,000) taken when it wrote the headers and gives back the
    // 800 unused, so 15,800 remain.
    expect(settled.buckets.outputTokens).toEqual({ capacity: 16_000, available: 15_800, source: 'api' });
    expect(await a.reserve(call('u2', 20_000))).toMatchObject({ kind: 'wait', limit: 'input_tokens', booked: true });
  });

  it('corrects its buckets from the simulator’s real headers, received through the SDK, and only ever lowers them', async () => {
    const simulator: RunningSimulator = await startSimulator({ rateLimits: { requestsPerMinute: 1000, inputTokensPerMinute: 100_000, outputTokensPerMinute: 100_000 } });
    try {
      const client = new Anthropic({ apiKey: 'sk-test-admission', baseURL: simulator.url, maxRetries: 0 });
      provider = { name: 'anthropic', identity: limiterIdentity({ apiKey: 'sk-test-admission' }) };
      const settings: ModelRateLimiterSettings = {
        // Seeded higher than the real limit, as an operator who guessed wrong would.
        limits: { requestsPerMinute: 0, inputTokensPerMinute: 1_000_000, outputTokensPerMinute: 1_000_000 },
        batchHeadroom: 0.2,
        reservationTtlMs: 600_000,
        bookingGraceMs: 30_000,
      };
      const limiter = new ModelRateLimiter(first, prefix, settings);
      // Someone else on the same key spends 60,000 input tokens the fleet never saw.
      simulator.rateLimits.admit({ apiKey: 'sk-test-admission', rateLimitClass: 'claude-sonnet-4', model: 'claude-sonnet-4-6', inputTokens: 60_000, maxOutputTokens: 0 });
      const decision = await limiter.reserve(call('sim-1', 2000, { outputTokens: 500 }));
      if (decision.kind !== 'go') throw new Error('expected go');
      const result = await callModel(
        client,
        {
          model: 'claude-sonnet-4-6',
          maxTokens: 500,
          system: 'You build websites.',
          messages: [{ role: 'user', content: 'Hello' }],
          tools: [{ name: 'finish_turn', description: 'Finish.', input_schema: { type: 'object', properties: {} } }],
          toolChoice: { type: 'auto' },
          stopSequences: [],
          headers: {},
        },
        { idleTimeoutMs: 10_000 },
      );
      const headers = readRateLimitHeaders(result.headers);
      expect(headers?.inputTokens.limit).toBe(100_000);
      const settled = await limiter.settleAnswer(decision.reservation, { usage: result.response.usage, headers: result.headers, headersReceivedAt: result.headersReceivedAt });
      expect(settled.corrected).toBeGreaterThanOrEqual(1);
      expect(settled.buckets.inputTokens.capacity).toBe(100_000);
      expect(settled.buckets.inputTokens.source).toBe('api');
      // What the simulator says remains (its 60,000 + this call spent), give or take the refill
      // between its header and the settle.
      const remaining = headers!.inputTokens.remaining!;
      expect(remaining).toBeLessThan(45_000);
      expect(settled.buckets.inputTokens.available).toBeGreaterThanOrEqual(remaining);
      expect(settled.buckets.inputTokens.available).toBeLessThan(remaining + 5000);
      // A later answer reporting more room than the limiter holds does not raise it.
      const again = await limiter.reserve(call('sim-2', 1000, { outputTokens: 10 }));
      if (again.kind !== 'go') throw new Error('expected go');
      const raised = await limiter.settle(again.reservation, {
        counted: { requests: 1, inputTokens: 1000, outputTokens: 10 },
        headers: { requests: { limit: null, remaining: null }, inputTokens: { limit: 100_000, remaining: 100_000 }, outputTokens: { limit: null, remaining: null } },
      });
      expect(raised.corrected).toBe(0);
      expect(raised.buckets.inputTokens.available).toBeLessThan(remaining + 5000);
    } finally {
      await simulator.close();
    }
  });
});
