// The admin endpoints behind the `admin` scope: the queue dashboard and the kill switch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiTestHarness, type ApiTestHarness } from '../../src/api/testing/api-test-harness.js';

let harness: ApiTestHarness;
let operator: Record<string, string>;
let user: Record<string, string>;

beforeAll(async () => {
  harness = await createApiTestHarness({ label: 'apiadmin' });
  operator = { authorization: `Bearer ${await harness.createKey({ tenant: 'ops', scopes: ['admin'] })}` };
  user = { authorization: `Bearer ${await harness.createKey({ tenant: 'acme', scopes: ['runs:read', 'runs:write'] })}` };
});

afterAll(async () => {
  await harness.close();
});

describe('GET /v1/admin/queues', () => {
  it('shows job counts per state of every fleet queue (model, tool, webhook, archive), fleet-wide', async () => {
    for (let index = 0; index < 2; index += 1) {
      expect((await harness.app.inject({ method: 'POST', url: '/v1/runs', headers: user, payload: { prompt: `run ${index}` } })).statusCode).toBe(202);
    }
    // One archive job and one webhook delivery (no worker takes them here): the console's admin
    // view shows the depths of these queues too.
    const now = new Date().toISOString();
    await harness.fleet.queues.own.enqueueArchive('run_admincounts');
    await harness.fleet.queues.own.enqueueWebhook(
      {
        runId: 'run_admincounts',
        turn: 1,
        url: 'https://hooks.example.com/buildfleet',
        payload: { id: 'webhook-run_admincounts-ended-1', event: 'run.ended', occurredAt: now, runId: 'run_admincounts', tenant: 'acme', status: 'succeeded', error: null, result: 'done', costUsd: 0, question: null, createdAt: now },
      },
      { attempts: 1, backoffMs: 1000 },
    );
    const response = await harness.app.inject({ url: '/v1/admin/queues', headers: operator });
    expect(response.statusCode).toBe(200);
    const { queues } = response.json() as { queues: Record<string, Record<string, number>> };
    expect(Object.keys(queues)).toEqual(['model', 'tool', 'webhook', 'archive']);
    for (const counts of Object.values(queues)) {
      expect(Object.keys(counts).sort()).toEqual(['active', 'completed', 'delayed', 'failed', 'paused', 'prioritized', 'waiting', 'waiting-children']);
    }
    expect(queues.model!.waiting).toBe(2);
    expect(queues.tool!.waiting).toBe(0);
    expect(queues.archive!.waiting).toBe(1);
    expect(queues.webhook!.waiting).toBe(1);
  });

  it('is 403 for a key without admin and 401 without a key', async () => {
    expect((await harness.app.inject({ url: '/v1/admin/queues', headers: user })).statusCode).toBe(403);
    expect((await harness.app.inject({ url: '/v1/admin/queues' })).statusCode).toBe(401);
  });
});

describe('/v1/admin/killswitch', () => {
  it('shows and sets the kill switch for admin keys only', async () => {
    const shown = await harness.app.inject({ url: '/v1/admin/killswitch', headers: operator });
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toMatchObject({ mode: 'read_write' });

    const denied = await harness.app.inject({ method: 'POST', url: '/v1/admin/killswitch', headers: user, payload: { mode: 'read_only' } });
    expect(denied.statusCode).toBe(403);
    expect((await harness.app.inject({ url: '/v1/admin/killswitch', headers: operator })).json()).toMatchObject({ mode: 'read_write' });

    const stopped = await harness.app.inject({ method: 'POST', url: '/v1/admin/killswitch', headers: operator, payload: { mode: 'read_only', reason: 'drill' } });
    expect(stopped.statusCode).toBe(200);
    expect(stopped.json()).toMatchObject({ mode: 'read_only', reason: 'drill' });
    const reset = await harness.app.inject({ method: 'POST', url: '/v1/admin/killswitch', headers: operator, payload: { mode: 'read_write' } });
    expect(reset.json()).toMatchObject({ mode: 'read_write' });

    const invalid = await harness.app.inject({ method: 'POST', url: '/v1/admin/killswitch', headers: operator, payload: { mode: 'off' } });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().error.code).toBe('invalid_body');
  });
});
