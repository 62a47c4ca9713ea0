// submitRunIdempotently's edges against real Redis: a failed winner frees the key, a stuck
// pending marker answers idempotency_key_in_progress, a foreign value is a conflict; and over
// HTTP, 100 concurrent creations with one key make exactly one run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitRunIdempotently } from '../../src/api/submit-run-idempotently.js';
import { createApiTestHarness, type ApiTestHarness } from '../../src/api/testing/api-test-harness.js';
import { canonicalJsonHash } from '../../src/api/canonical-json.js';

let harness: ApiTestHarness;

beforeAll(async () => {
  harness = await createApiTestHarness({ label: 'apiidem' });
});

afterAll(async () => {
  await harness.close();
});

describe('submitRunIdempotently', () => {
  it('frees the key when creating the run fails, so a retry creates it', async () => {
    const input = { fleet: harness.fleet, tenant: 'default', idempotencyKey: 'fails-once', body: { prompt: 'x' } };
    await expect(
      submitRunIdempotently({
        ...input,
        submit: async () => {
          throw new Error('enqueue failed');
        },
      }),
    ).rejects.toThrow('enqueue failed');
    expect(await harness.fleet.redis.exists(harness.fleet.store.keys.idempotency('default', 'fails-once'))).toBe(0);

    const created = await submitRunIdempotently({ ...input, submit: () => harness.newRun() });
    expect(created.replayed).toBe(false);
    const replayed = await submitRunIdempotently({ ...input, submit: () => harness.newRun() });
    expect(replayed).toMatchObject({ replayed: true, run: { id: created.run.id } });
  });

  it('answers idempotency_key_in_progress while another request holds the key too long', async () => {
    const key = harness.fleet.store.keys.idempotency('default', 'stuck');
    const body = { prompt: 'x' };
    await harness.fleet.redis.set(key, JSON.stringify({ state: 'pending', hash: canonicalJsonHash(body), claim: 'other' }), 'EX', 30);
    let submitted = false;
    const attempt = submitRunIdempotently({
      fleet: harness.fleet,
      tenant: 'default',
      idempotencyKey: 'stuck',
      body,
      waitForWinnerMs: 200,
      submit: async () => {
        submitted = true;
        return harness.newRun();
      },
    });
    await expect(attempt).rejects.toMatchObject({ code: 'idempotency_key_in_progress', statusCode: 409 });
    expect(submitted).toBe(false);
    // The pending marker is short-lived, so a crashed winner does not block the key for 24 h.
    expect(await harness.fleet.redis.ttl(key)).toBeLessThanOrEqual(30);
  });

  it('treats a value it did not write as a conflict rather than looping', async () => {
    await harness.fleet.redis.set(harness.fleet.store.keys.idempotency('default', 'garbage'), 'not json');
    await expect(
      submitRunIdempotently({ fleet: harness.fleet, tenant: 'default', idempotencyKey: 'garbage', body: {}, submit: () => harness.newRun() }),
    ).rejects.toMatchObject({ code: 'idempotency_key_conflict' });
  });
});

describe('POST /v1/runs with one Idempotency-Key, 100 times at once', () => {
  it('creates exactly one run; every answer carries its id; the same key with another body is 422', async () => {
    const token = await harness.createKey({ tenant: 'stampede', scopes: ['runs:write'] });
    const headers = { authorization: `Bearer ${token}`, 'idempotency-key': 'stampede-1' };
    const body = { prompt: 'One bakery, however many times you ask', maxTurns: 7 };
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => harness.app.inject({ method: 'POST', url: '/v1/runs', headers, payload: body })),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(Array(100).fill(202));
    const ids = new Set(responses.map((response) => response.json().id as string));
    expect(ids.size).toBe(1);
    expect(responses.filter((response) => response.headers['idempotent-replayed'] === 'true')).toHaveLength(99);
    expect(await harness.fleet.redis.zcard(harness.fleet.store.keys.runsByTenant('stampede'))).toBe(1);
    const [id] = [...ids];
    expect(await harness.fleet.queues.own.model.getJob(`${id}-turn-0`)).toBeTruthy();

    const conflict = await harness.app.inject({ method: 'POST', url: '/v1/runs', headers, payload: { ...body, maxTurns: 8 } });
    expect(conflict.statusCode).toBe(422);
    expect(conflict.json().error.code).toBe('idempotency_key_conflict');
    expect(await harness.fleet.redis.zcard(harness.fleet.store.keys.runsByTenant('stampede'))).toBe(1);
  });
});
