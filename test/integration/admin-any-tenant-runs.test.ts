// An admin key reaches every tenant's runs over real HTTP (docs/security.md#tenant-isolation): an
// admin of tenant `operators` reads a run of tenant `bakery` (GET /v1/runs/:id, /events), answers
// its question, cancels it, resumes it and reruns it — the rerun stays the bakery's — while a
// key of a third tenant without the admin scope meets every one of those routes with 404 and
// leaves the run untouched. Real queue, Redis and simulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/auth/api-key-store.js';
import { newRunId } from '../../src/engine/index.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

const RUN_TENANT = 'bakery';
let harness: InProcessFleet;
let adminKey: string;
let strangerKey: string;

beforeAll(async () => {
  harness = await startInProcessFleet({ label: 'adminanytenant', env: { BUILDFLEET_RETRY_BASE_MS: '20' } });
  const keys = new ApiKeyStore({ redis: harness.fleet.redis, keys: harness.fleet.store.keys });
  ({ token: adminKey } = await keys.create({ tenant: 'operators', scopes: ['admin'] }));
  ({ token: strangerKey } = await keys.create({ tenant: 'stranger', scopes: ['runs:read', 'runs:write'] }));
}, 120_000);
afterAll(async () => {
  await harness?.close();
});

async function call(method: 'GET' | 'POST', path: string, key: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${harness.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? null : JSON.parse(text) };
}

/** A bakery run that asks its question and waits for the answer. */
async function waitingRun(): Promise<string> {
  const created = await harness.submit({ tenant: RUN_TENANT, options: { scenario: 'ask_user' } });
  const waiting = await harness.waitForRun(created.id, 60_000);
  expect(waiting.status).toBe('waiting_for_input');
  return created.id;
}

/** A bakery run that failed model_unavailable at turn 1 (every attempt of its second call 503). */
async function failedRun(): Promise<string> {
  const runId = newRunId();
  harness.simulator.faults.add([
    { kind: 'slow', delayMs: 0, runId, count: 1 },
    { kind: 'server_error', status: 503, runId, count: 5 },
  ]);
  await harness.submit({ tenant: RUN_TENANT, runId });
  const failed = await harness.waitForRun(runId, 60_000);
  expect(failed.error?.code).toBe('model_unavailable');
  return runId;
}

/** Every run route, as the stranger calls it: each answers run_not_found, as for an unknown id. */
async function expectStrangerRefused(runId: string): Promise<void> {
  for (const [method, path, body] of [
    ['GET', `/v1/runs/${runId}`],
    ['GET', `/v1/runs/${runId}/events`],
    ['GET', `/v1/runs/${runId}/transcript`],
    ['POST', `/v1/runs/${runId}/input`, { text: 'Blue' }],
    ['POST', `/v1/runs/${runId}/cancel`],
    ['POST', `/v1/runs/${runId}/resume`],
    ['POST', `/v1/runs/${runId}/rerun`, {}],
  ] as const) {
    const answer = await call(method, path, strangerKey, body);
    expect(answer.status, `${method} ${path}`).toBe(404);
    expect(answer.json, `${method} ${path}`).toEqual({ error: { code: 'run_not_found', message: 'No such run.' } });
  }
}

describe('an admin key and another tenant’s run', () => {
  it('reads the run and its events, and answers its question; a stranger gets 404 and changes nothing', async () => {
    const runId = await waitingRun();
    await expectStrangerRefused(runId);
    expect(await harness.fleet.store.getRun(runId)).toMatchObject({ status: 'waiting_for_input', tenant: RUN_TENANT });

    const view = await call('GET', `/v1/runs/${runId}`, adminKey);
    expect(view.status).toBe(200);
    expect(view.json).toMatchObject({ id: runId, status: 'waiting_for_input', question: { question: expect.any(String) } });
    const events = await call('GET', `/v1/runs/${runId}/events`, adminKey);
    expect(events.status).toBe(200);
    expect((events.json as Array<{ event: string }>).map((event) => event.event)).toContain('input-wait');

    const answered = await call('POST', `/v1/runs/${runId}/input`, adminKey, { text: 'Blue and white' });
    expect(answered.status).toBe(202);
    const done = await harness.waitForRun(runId, 60_000);
    expect(done.status).toBe('succeeded');
    expect(done.tenant).toBe(RUN_TENANT);
  }, 180_000);

  it('cancels it, as an operator stopping a runaway run', async () => {
    const runId = await waitingRun();
    const cancelled = await call('POST', `/v1/runs/${runId}/cancel`, adminKey);
    expect(cancelled).toEqual({ status: 202, json: { id: runId, status: 'cancelled' } });
    expect((await harness.fleet.store.getRun(runId))?.status).toBe('cancelled');
  }, 120_000);

  it('resumes it under the run’s own tenant, and reruns it as a new run of that tenant', async () => {
    const runId = await failedRun();
    await expectStrangerRefused(runId);
    expect((await harness.fleet.store.getRun(runId))?.status).toBe('failed');

    const resumed = await call('POST', `/v1/runs/${runId}/resume`, adminKey);
    expect(resumed).toEqual({ status: 202, json: { id: runId, status: 'running' } });
    const done = await harness.waitForRun(runId, 60_000);
    expect(done).toMatchObject({ status: 'succeeded', tenant: RUN_TENANT });
    // Admitted in the run's tenant: the admin's own tenant never held a slot for it.
    expect(await harness.fleet.store.holdsAdmissionSlot({ tenant: 'operators', runId })).toBe(false);

    const rerun = await call('POST', `/v1/runs/${runId}/rerun`, adminKey, { prompt: 'A florist landing page' });
    expect(rerun.status).toBe(202);
    const copyId = rerun.json.id as string;
    expect(copyId).not.toBe(runId);
    expect(await harness.fleet.store.getRun(copyId)).toMatchObject({ tenant: RUN_TENANT, rerunOf: runId, prompt: 'A florist landing page' });
    // It shows in the bakery's listing beside the original, not in the admin's own tenant's.
    const bakery = await call('GET', `/v1/runs?tenant=${RUN_TENANT}&limit=100`, adminKey);
    expect((bakery.json.runs as Array<{ id: string }>).map((run) => run.id)).toEqual(expect.arrayContaining([copyId, runId]));
    const own = await call('GET', '/v1/runs?limit=100', adminKey);
    expect((own.json.runs as Array<{ id: string }>).map((run) => run.id)).not.toContain(copyId);
    await harness.waitForRun(copyId, 60_000);
  }, 180_000);
});
