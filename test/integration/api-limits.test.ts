// Per-tenant limits on POST /v1/runs, each with its own error code: the prompt length
// (prompt_too_large), a sliding-window rate limit (rate_limited with retry-after) and a cap on
// runs that have not ended (too_many_active_runs), counted atomically under concurrency and freed
// when a run ends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiTestHarness, type ApiTestHarness } from '../../src/api/testing/api-test-harness.js';
import { cancelRun } from '../../src/fleet/run-commands.js';

const harnesses: ApiTestHarness[] = [];
afterAll(async () => {
  await Promise.all(harnesses.map((harness) => harness.close()));
});

async function harnessWith(label: string, environment: Record<string, string>): Promise<ApiTestHarness> {
  const harness = await createApiTestHarness({ label, environment });
  harnesses.push(harness);
  return harness;
}

async function keyFor(harness: ApiTestHarness, tenant: string): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await harness.createKey({ tenant, scopes: ['runs:read', 'runs:write'] })}` };
}

const create = (harness: ApiTestHarness, headers: Record<string, string>, prompt = 'Build a bakery site') =>
  harness.app.inject({ method: 'POST', url: '/v1/runs', headers, payload: { prompt } });

describe('prompt size (BUILDFLEET_MAX_PROMPT_CHARS)', () => {
  let harness: ApiTestHarness;
  beforeAll(async () => {
    harness = await harnessWith('limprompt', { BUILDFLEET_MAX_PROMPT_CHARS: '100' });
  });

  it('accepts exactly the limit, in characters rather than bytes or UTF-16 units', async () => {
    expect((await create(harness, harness.auth, 'x'.repeat(100))).statusCode).toBe(202);
    expect((await create(harness, harness.auth, '🥐'.repeat(100))).statusCode).toBe(202);
  });

  it('answers 400 prompt_too_large above it, creating nothing', async () => {
    const before = await harness.fleet.redis.zcard(harness.fleet.store.keys.runsByTenant('default'));
    const response = await create(harness, harness.auth, 'x'.repeat(101));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { code: 'prompt_too_large', message: 'The prompt has 101 characters; at most 100 are allowed.' } });
    expect(await harness.fleet.redis.zcard(harness.fleet.store.keys.runsByTenant('default'))).toBe(before);
  });
});

describe('rate limit (BUILDFLEET_RATE_LIMIT_PER_MINUTE)', () => {
  let harness: ApiTestHarness;
  beforeAll(async () => {
    harness = await harnessWith('limrate', { BUILDFLEET_RATE_LIMIT_PER_MINUTE: '5' });
  });

  it('answers 429 rate_limited with retry-after once a tenant created its runs of the minute', async () => {
    const tenant = await keyFor(harness, 'ratelimited');
    const statuses = [];
    for (let index = 0; index < 5; index += 1) statuses.push((await create(harness, { ...tenant, 'idempotency-key': `k${index}` })).statusCode);
    expect(statuses).toEqual([202, 202, 202, 202, 202]);
    const limited = await create(harness, tenant);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ error: { code: 'rate_limited', message: expect.stringContaining('5 runs per minute') } });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await harness.fleet.redis.zcard(harness.fleet.store.keys.runsByTenant('ratelimited'))).toBe(5);

    // A replay of an Idempotency-Key returns its run and is not a new creation.
    const replay = await create(harness, { ...tenant, 'idempotency-key': 'k0' });
    expect(replay.statusCode).toBe(202);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    // Other tenants have windows of their own.
    expect((await create(harness, await keyFor(harness, 'unaffected'))).statusCode).toBe(202);
  });

  it('lets creations through again as the window slides', async () => {
    const tenant = await keyFor(harness, 'sliding');
    for (let index = 0; index < 5; index += 1) expect((await create(harness, tenant)).statusCode).toBe(202);
    expect((await create(harness, tenant)).statusCode).toBe(429);
    // Age every entry of the window by a minute, as if it had passed.
    const key = harness.fleet.store.keys.runCreations('sliding');
    const entries = await harness.fleet.redis.zrange(key, 0, -1, 'WITHSCORES');
    for (let index = 0; index < entries.length; index += 2) await harness.fleet.redis.zadd(key, Number(entries[index + 1]) - 61_000, entries[index]!);
    expect((await create(harness, tenant)).statusCode).toBe(202);
  });
});

describe('concurrent runs (BUILDFLEET_MAX_CONCURRENT_RUNS)', () => {
  let harness: ApiTestHarness;
  beforeAll(async () => {
    harness = await harnessWith('limactive', { BUILDFLEET_MAX_CONCURRENT_RUNS: '3' });
  });

  it('answers 429 too_many_active_runs at the cap, and admits again once a run ends', async () => {
    const tenant = await keyFor(harness, 'busy');
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const response = await create(harness, tenant);
      expect(response.statusCode).toBe(202);
      ids.push(response.json().id);
    }
    const refused = await create(harness, tenant);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ error: { code: 'too_many_active_runs', message: expect.stringContaining('3 runs that have not ended') } });
    expect((await create(harness, await keyFor(harness, 'idle'))).statusCode).toBe(202);

    // Cancelling over the API ends a run: its slot is free.
    expect((await harness.app.inject({ method: 'POST', url: `/v1/runs/${ids[0]}/cancel`, headers: tenant })).statusCode).toBe(202);
    expect((await create(harness, tenant)).statusCode).toBe(202);
    expect((await create(harness, tenant)).statusCode).toBe(429);

    // So does any terminal transition of the workers (RunEngine.endRun).
    await harness.fleet.store.endRun(ids[1]!, 0, 'succeeded', { result: 'done' });
    expect(await harness.fleet.store.holdsAdmissionSlot({ tenant: 'busy', runId: ids[1]! })).toBe(false);
    expect((await create(harness, tenant)).statusCode).toBe(202);
  });

  it('counts atomically: 20 concurrent creations against a cap of 3 admit exactly 3', async () => {
    const tenant = await keyFor(harness, 'racer');
    const responses = await Promise.all(Array.from({ length: 20 }, () => create(harness, tenant)));
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses.filter((status) => status === 202)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(17);
    expect(await harness.fleet.store.activeRunCount('racer')).toBe(3);
    expect(await harness.fleet.redis.zcard(harness.fleet.store.keys.runsByTenant('racer'))).toBe(3);
  });

  it('prunes slots of runs that ended without freeing them (a crash between end and update)', async () => {
    const tenant = await keyFor(harness, 'crashy');
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) ids.push((await create(harness, tenant)).json().id);
    // Ended behind the store's back, and one run's record gone altogether. Raw Redis on purpose:
    // this is the state a crash between ending a run and freeing its slot leaves, which no engine
    // operation produces (endRun frees the slot itself).
    await harness.fleet.redis.hset(harness.fleet.store.keys.run(ids[0]!), 'status', 'failed');
    await harness.fleet.redis.del(harness.fleet.store.keys.run(ids[1]!));
    expect((await create(harness, tenant)).statusCode).toBe(202);
    // A run without a record keeps its slot while its admission marker lives (it may be being
    // created right now: admit-run.ts); once the marker's grace has passed, it is pruned too.
    expect((await create(harness, tenant)).statusCode).toBe(429);
    await harness.fleet.redis.del(harness.fleet.store.keys.runAdmission('crashy', ids[1]!));
    expect((await create(harness, tenant)).statusCode).toBe(202);
    expect((await create(harness, tenant)).statusCode).toBe(429);
    expect(await harness.fleet.store.activeRunCount('crashy')).toBe(3);
  });

  it('frees the slot when creating the run fails after admission, and ends the run it created', async () => {
    const tenant = await keyFor(harness, 'flaky');
    const original = harness.fleet.queues.own.enqueueTurn.bind(harness.fleet.queues.own);
    harness.fleet.queues.own.enqueueTurn = async () => {
      throw new Error('queue unavailable');
    };
    try {
      expect((await create(harness, tenant)).statusCode).toBe(500);
    } finally {
      harness.fleet.queues.own.enqueueTurn = original;
    }
    expect(await harness.fleet.store.activeRunCount('flaky')).toBe(0);
    // The run was written before the enqueue failed: it ended, so nothing can start it without a slot.
    const [runId] = await harness.fleet.redis.zrange(harness.fleet.store.keys.runsByTenant('flaky'), 0, -1);
    expect(await harness.fleet.store.getRun(runId!)).toMatchObject({ status: 'failed', error: { code: 'enqueue_failed' } });
  });

  it('cancelRun frees the slot too', async () => {
    const tenant = await keyFor(harness, 'canceller');
    const id = (await create(harness, tenant)).json().id as string;
    const run = await harness.fleet.store.getRun(id);
    expect(await cancelRun(harness.fleet, run!)).toBe(true);
    expect(await harness.fleet.store.activeRunCount('canceller')).toBe(0);
  });
});
