// Tenant isolation: a run belongs to the tenant of the key that created it; every run endpoint
// answers another tenant's run with the same 404 as an unknown id, idempotency keys are per
// tenant, and GET /v1/runs lists only one's own runs, paged by cursor and filtered by status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiTestHarness, type ApiTestHarness } from '../../src/api/testing/api-test-harness.js';
import { isTerminal, type RunStatus } from '../../src/domain/run-outcomes.js';

let harness: ApiTestHarness;
let alice: Record<string, string>;
let bob: Record<string, string>;

beforeAll(async () => {
  harness = await createApiTestHarness({ label: 'apitenants' });
  alice = { authorization: `Bearer ${await harness.createKey({ tenant: 'alice', scopes: ['runs:read', 'runs:write'] })}` };
  bob = { authorization: `Bearer ${await harness.createKey({ tenant: 'bob', scopes: ['runs:read', 'runs:write'] })}` };
});

afterAll(async () => {
  await harness.close();
});

const inject = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: object) =>
  harness.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

interface Page {
  runs: Array<{ id: string; status: RunStatus; createdAt: string; prompt: string }>;
  nextCursor: string | null;
}

async function listAll(headers: Record<string, string>, query = ''): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const response = await inject('GET', `/v1/runs?${query}${cursor ? `&cursor=${cursor}` : ''}`, headers);
    expect(response.statusCode).toBe(200);
    const page = response.json() as Page;
    ids.push(...page.runs.map((run) => run.id));
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor !== null && pages < 100);
  return { ids, pages };
}

describe('another tenant’s run', () => {
  it('is 404 run_not_found on every endpoint and is left untouched', async () => {
    const created = await inject('POST', '/v1/runs', alice, { prompt: 'Alice’s bakery' });
    expect(created.statusCode).toBe(202);
    const id = created.json().id as string;
    expect((await harness.fleet.store.getRun(id))?.tenant).toBe('alice');
    await harness.fleet.store.updateRun(id, { status: 'waiting_for_input', question: { toolUseId: 'toolu_q', question: 'Colour?', turn: 1 } });

    for (const [method, url, payload] of [
      ['GET', `/v1/runs/${id}`],
      ['GET', `/v1/runs/${id}/events`],
      ['POST', `/v1/runs/${id}/input`, { text: 'Red' }],
      ['POST', `/v1/runs/${id}/cancel`],
    ] as const) {
      const response = await inject(method, url, { ...bob, accept: 'application/json' }, payload);
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.json(), `${method} ${url}`).toEqual({ error: { code: 'run_not_found', message: 'No such run.' } });
    }
    const after = await harness.fleet.store.getRun(id);
    expect(after).toMatchObject({ status: 'waiting_for_input', question: { toolUseId: 'toolu_q' } });
    expect((await inject('GET', `/v1/runs/${id}`, alice)).statusCode).toBe(200);
    expect((await inject('GET', `/v1/runs/${id}/events`, { ...alice, accept: 'application/json' })).statusCode).toBe(200);
  });

  it('keeps Idempotency-Keys apart: the same key in two tenants makes two runs', async () => {
    const headers = { 'idempotency-key': 'shared-key-1' };
    const fromAlice = await inject('POST', '/v1/runs', { ...alice, ...headers }, { prompt: 'one' });
    const fromBob = await inject('POST', '/v1/runs', { ...bob, ...headers }, { prompt: 'two' });
    expect(fromAlice.statusCode).toBe(202);
    expect(fromBob.statusCode).toBe(202);
    expect(fromAlice.json().id).not.toBe(fromBob.json().id);
    expect((await harness.fleet.store.getRun(fromBob.json().id))?.tenant).toBe('bob');
  });

  it('site pages stay public (documented): anyone with the run id can view a published site', async () => {
    const id = (await inject('POST', '/v1/runs', alice, { prompt: 'public site' })).json().id as string;
    await harness.writeFile(id, 'index.html', '<html>alice</html>');
    await harness.deploy(id, 'dep_a');
    await harness.fleet.store.updateRun(id, { liveDeploy: 'dep_a' });
    // On the sites origin, which has no keys at all.
    expect((await harness.sites.inject({ method: 'GET', url: `/sites/${id}/`, headers: bob })).statusCode).toBe(200);
    expect((await harness.sites.inject({ method: 'GET', url: `/sites/${id}/` })).statusCode).toBe(200);
  });
});

describe('GET /v1/runs', () => {
  it('lists only the caller’s runs', async () => {
    const carol = { authorization: `Bearer ${await harness.createKey({ tenant: 'carol', scopes: ['runs:read', 'runs:write'] })}` };
    const dave = { authorization: `Bearer ${await harness.createKey({ tenant: 'dave', scopes: ['runs:read', 'runs:write'] })}` };
    const carols = [];
    for (let index = 0; index < 3; index += 1) carols.push((await inject('POST', '/v1/runs', carol, { prompt: `carol ${index}` })).json().id);
    const daves = [(await inject('POST', '/v1/runs', dave, { prompt: 'dave' })).json().id];
    expect((await listAll(carol)).ids.sort()).toEqual([...carols].sort());
    expect((await listAll(dave)).ids).toEqual(daves);
    const page = (await inject('GET', '/v1/runs', carol)).json() as Page;
    expect(page.runs[0]).toEqual({ id: carols[2], status: 'queued', agent: 'site-builder', phase: 'planning', turn: 0, prompt: 'carol 2', createdAt: expect.any(String), updatedAt: expect.any(String) });
  });

  it('pages newest first by cursor, without gaps or repeats, also across runs created in the same millisecond', async () => {
    const erin = { authorization: `Bearer ${await harness.createKey({ tenant: 'erin', scopes: ['runs:read'] })}` };
    const key = harness.fleet.store.keys.runsByTenant('erin');
    const ids: string[] = [];
    for (let index = 0; index < 37; index += 1) {
      const run = await harness.fleet.store.createRun({ tenant: 'erin', prompt: `p${index}`, model: 'm', maxTurns: 1, maxTokens: 1, options: {} });
      ids.push(run.id);
    }
    // Twelve runs share one creation time, so the cursor's tie-break on the id is exercised. The
    // tenant index is rewritten directly: creating twelve runs in one millisecond cannot be forced.
    for (const id of ids.slice(10, 22)) await harness.fleet.redis.zadd(key, 1_700_000_000_000, id);
    const { ids: listed, pages } = await listAll(erin, 'limit=5');
    expect(listed).toHaveLength(37);
    expect(new Set(listed).size).toBe(37);
    expect(pages).toBe(8);
    const scores = await Promise.all(listed.map((id) => harness.fleet.redis.zscore(key, id)));
    for (let index = 1; index < scores.length; index += 1) expect(Number(scores[index])).toBeLessThanOrEqual(Number(scores[index - 1]));

    const first = (await inject('GET', '/v1/runs?limit=100', erin)).json() as Page;
    expect(first.runs).toHaveLength(37);
    expect(first.nextCursor).toBeNull();
  });

  it('filters by status', async () => {
    const frank = { authorization: `Bearer ${await harness.createKey({ tenant: 'frank', scopes: ['runs:read'] })}` };
    const statuses: RunStatus[] = ['queued', 'running', 'succeeded', 'failed', 'succeeded', 'cancelled', 'succeeded'];
    const byStatus = new Map<RunStatus, string[]>();
    for (const status of statuses) {
      const run = await harness.fleet.store.createRun({ tenant: 'frank', prompt: status, model: 'm', maxTurns: 1, maxTokens: 1, options: {} });
      if (isTerminal(status)) await harness.fleet.store.endRun(run.id, 0, status, {});
      else if (status !== 'queued') await harness.fleet.store.updateRun(run.id, { status });
      byStatus.set(status, [...(byStatus.get(status) ?? []), run.id]);
    }
    const succeeded = await listAll(frank, 'status=succeeded&limit=2');
    expect(succeeded.ids.sort()).toEqual([...byStatus.get('succeeded')!].sort());
    expect((await listAll(frank, 'status=waiting_for_input')).ids).toEqual([]);
  });

  it.each([
    ['limit=0', 'query.limit'],
    ['limit=101', 'query.limit'],
    ['limit=abc', 'query.limit'],
    ['limit=2.5', 'query.limit'],
    ['status=done', 'query.status'],
    ['cursor=%24%24%24', 'query.cursor'],
    [`cursor=${Buffer.from('12:not-a-run').toString('base64url')}`, 'query.cursor'],
    ['cursor=' + 'a'.repeat(201), 'query.cursor'],
  ])('answers 400 invalid_query for ?%s', async (query, mentions) => {
    const response = await inject('GET', `/v1/runs?${query}`, harness.auth);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toEqual({ code: 'invalid_query', message: expect.stringContaining(mentions) });
  });
});
