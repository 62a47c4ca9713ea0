// The /v1/runs endpoints against real Redis: creation and its job, every malformed-input path,
// idempotency under concurrency, input, cancel, health, and what unknown runs and failures answer.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createFleetContext } from '../../src/fleet/fleet-context.js';
import { buildApiServer } from '../../src/api/api-server.js';
import { createApiTestHarness, type ApiTestHarness } from '../../src/api/testing/api-test-harness.js';
import { uniquePrefix } from '../support/redis.js';
import { FleetQueues } from '../../src/jobs/fleet-queues.js';
import { QueueShards } from '../../src/jobs/queue-shards.js';
import { connectRedis } from '../../src/redis/redis-connection.js';
import { RunReaper } from '../../src/workers/run-reaper.js';

let harness: ApiTestHarness;
let listeningUrl: string | undefined;

/** The harness listens once; tests that need a socket share it. */
async function listening(): Promise<string> {
  listeningUrl ??= await harness.listen();
  return listeningUrl;
}

beforeAll(async () => {
  harness = await createApiTestHarness({ label: 'apiruns' });
});

afterAll(async () => {
  await harness.close();
});

const post = (url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  harness.app.inject({ method: 'POST', url, ...(payload === undefined ? {} : { payload: payload as object }), headers: { ...harness.auth, ...headers } });
const get = (url: string) => harness.app.inject({ method: 'GET', url, headers: harness.auth });

async function countRuns(): Promise<number> {
  return harness.fleet.redis.zcard(harness.fleet.store.keys.runsByTenant('default'));
}

describe('POST /v1/runs', () => {
  it('creates a run, answers 202 with its id and location, and enqueues turn 0', async () => {
    const response = await post('/v1/runs', { prompt: 'Build a site for a bakery', maxTurns: 12, options: { scenario: 'happy' } });
    expect(response.statusCode).toBe(202);
    const body = response.json();
    expect(body).toEqual({ id: expect.stringMatching(/^run_[a-zA-Z0-9]{8,64}$/), status: 'queued' });
    expect(response.headers.location).toBe(`/v1/runs/${body.id}`);

    const job = await harness.fleet.queues.own.model.getJob(`${body.id}-turn-0`);
    expect(job?.data).toMatchObject({ runId: body.id, turn: 0 });
    const run = await harness.fleet.store.getRun(body.id);
    expect(run).toMatchObject({ tenant: 'default', prompt: 'Build a site for a bakery', maxTurns: 12, options: { scenario: 'happy' } });
    expect(run?.model).toBe(harness.fleet.config.BUILDFLEET_MODEL);
  });

  const malformed: Array<{ name: string; payload?: unknown; raw?: string; contentType?: string; status: number; code: string; mentions: string }> = [
    { name: 'missing prompt', payload: { model: 'x' }, status: 400, code: 'invalid_body', mentions: 'body.prompt' },
    { name: 'empty prompt', payload: { prompt: '' }, status: 400, code: 'invalid_body', mentions: 'body.prompt: Too small' },
    { name: 'a prompt of spaces and invisible characters', payload: { prompt: ' \n\u200b\t ' }, status: 400, code: 'agent_input_invalid', mentions: 'prompt: has no visible text' },
    { name: 'an unknown scenario', payload: { prompt: 'a bakery', options: { scenario: 'happy_paths' } }, status: 400, code: 'invalid_body', mentions: 'body.options.scenario: not a simulator scenario' },
    { name: 'an unknown agent', payload: { agent: 'bread-oven', prompt: 'a bakery' }, status: 400, code: 'unknown_agent', mentions: 'site-builder' },
    { name: 'both a prompt and an input', payload: { prompt: 'a bakery', input: { prompt: 'a bakery' } }, status: 400, code: 'invalid_body', mentions: 'not both' },
    { name: 'prompt too long', payload: { prompt: 'x'.repeat(20_001) }, status: 400, code: 'prompt_too_large', mentions: 'at most 20000' },
    { name: 'prompt too long in code points', payload: { prompt: '🥐'.repeat(20_001) }, status: 400, code: 'prompt_too_large', mentions: '20001 characters' },
    { name: 'prompt of the wrong type', payload: { prompt: 42 }, status: 400, code: 'invalid_body', mentions: 'body.prompt' },
    { name: 'maxTurns not an integer', payload: { prompt: 'x', maxTurns: 1.5 }, status: 400, code: 'invalid_body', mentions: 'body.maxTurns' },
    { name: 'maxTurns out of range', payload: { prompt: 'x', maxTurns: 201 }, status: 400, code: 'invalid_body', mentions: 'body.maxTurns' },
    { name: 'maxTurns as a string', payload: { prompt: 'x', maxTurns: '5' }, status: 400, code: 'invalid_body', mentions: 'body.maxTurns' },
    { name: 'unknown field', payload: { prompt: 'x', colour: 'red' }, status: 400, code: 'invalid_body', mentions: 'body.colour: Unknown field' },
    { name: 'unknown option', payload: { prompt: 'x', options: { turbo: true } }, status: 400, code: 'invalid_body', mentions: 'body.options.turbo' },
    { name: 'bad option value', payload: { prompt: 'x', options: { toolLayout: 'round' } }, status: 400, code: 'invalid_body', mentions: 'body.options.toolLayout' },
    { name: 'an array body', payload: [{ prompt: 'x' }], status: 400, code: 'invalid_body', mentions: 'body' },
    { name: 'invalid JSON', raw: '{"prompt": "x",', status: 400, code: 'invalid_body', mentions: 'Invalid JSON' },
    { name: 'prototype poisoning', raw: '{"prompt":"x","__proto__":{"admin":true}}', status: 400, code: 'invalid_body', mentions: '__proto__' },
    { name: 'empty JSON body', raw: '', status: 400, code: 'invalid_body', mentions: 'body: Required' },
    { name: 'whitespace JSON body', raw: '   ', status: 400, code: 'invalid_body', mentions: 'body: Required' },
    { name: 'JSON null', raw: 'null', status: 400, code: 'invalid_body', mentions: 'body' },
    { name: 'text/plain', raw: 'build me a site', contentType: 'text/plain', status: 415, code: 'unsupported_media_type', mentions: 'application/json' },
    { name: 'form encoding', raw: 'prompt=x', contentType: 'application/x-www-form-urlencoded', status: 415, code: 'unsupported_media_type', mentions: 'application/json' },
  ];

  for (const testCase of malformed) {
    it(`answers ${testCase.status} ${testCase.code} for ${testCase.name}, naming the field`, async () => {
      const before = await countRuns();
      const response =
        testCase.raw !== undefined
          ? await harness.app.inject({
              method: 'POST',
              url: '/v1/runs',
              payload: testCase.raw,
              headers: { ...harness.auth, 'content-type': testCase.contentType ?? 'application/json' },
            })
          : await post('/v1/runs', testCase.payload);
      expect(response.statusCode).toBe(testCase.status);
      const body = response.json();
      expect(body).toEqual({ error: { code: testCase.code, message: expect.any(String) } });
      expect(body.error.message).toContain(testCase.mentions);
      expect(await countRuns()).toBe(before);
    });
  }

  it('answers 400 when there is no body at all', async () => {
    const response = await harness.app.inject({ method: 'POST', url: '/v1/runs', headers: harness.auth });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toEqual({ code: 'invalid_body', message: expect.stringContaining('body: Required') });
  });

  it('answers 413 body_too_large for a 1 MB body, before any handler work', async () => {
    const before = await countRuns();
    const response = await post('/v1/runs', { prompt: 'x'.repeat(1024 * 1024) });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual({ error: { code: 'body_too_large', message: expect.any(String) } });
    expect(await countRuns()).toBe(before);
  });

  it('answers 413 on a real socket too, from Content-Length alone', async () => {
    const url = await listening();
    const response = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { ...harness.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'y'.repeat(1024 * 1024) }),
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('body_too_large');
  });
});

describe('Idempotency-Key', () => {
  it('returns the same run for the same key and body, whatever the key order', async () => {
    const headers = { 'idempotency-key': `same-${Date.now()}` };
    const first = await post('/v1/runs', { prompt: 'Bakery', maxTurns: 5 }, headers);
    const second = await post('/v1/runs', { maxTurns: 5, prompt: 'Bakery' }, headers);
    expect(first.statusCode).toBe(202);
    expect(second.statusCode).toBe(202);
    expect(second.json().id).toBe(first.json().id);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(second.headers.location).toBe(`/v1/runs/${first.json().id}`);
    const ttl = await harness.fleet.redis.ttl(harness.fleet.store.keys.idempotency('default', headers['idempotency-key']));
    expect(ttl).toBeGreaterThan(23 * 3600);
    expect(ttl).toBeLessThanOrEqual(24 * 3600);
  });

  it('answers 422 idempotency_key_conflict for the same key with a different body', async () => {
    const headers = { 'idempotency-key': `conflict-${Date.now()}` };
    const first = await post('/v1/runs', { prompt: 'Bakery' }, headers);
    const second = await post('/v1/runs', { prompt: 'Florist' }, headers);
    expect(first.statusCode).toBe(202);
    expect(second.statusCode).toBe(422);
    expect(second.json().error.code).toBe('idempotency_key_conflict');
  });

  it('creates exactly one run for 20 concurrent requests with the same key', async () => {
    const before = await countRuns();
    const headers = { 'idempotency-key': `race:${Date.now()}` };
    const responses = await Promise.all(Array.from({ length: 20 }, () => post('/v1/runs', { prompt: 'Concurrent bakery' }, headers)));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(20).fill(202));
    const ids = new Set(responses.map((response) => response.json().id as string));
    expect(ids.size).toBe(1);
    expect(await countRuns()).toBe(before + 1);
    const [id] = [...ids];
    expect(await harness.fleet.queues.own.model.getJob(`${id}-turn-0`)).toBeTruthy();
  });

  it('creates separate runs for different keys and for no key', async () => {
    const first = await post('/v1/runs', { prompt: 'Bakery' }, { 'idempotency-key': `a-${Date.now()}` });
    const second = await post('/v1/runs', { prompt: 'Bakery' }, { 'idempotency-key': `b-${Date.now()}` });
    const third = await post('/v1/runs', { prompt: 'Bakery' });
    const fourth = await post('/v1/runs', { prompt: 'Bakery' });
    expect(new Set([first, second, third, fourth].map((response) => response.json().id)).size).toBe(4);
  });

  it('a run whose first turn cannot be enqueued answers 500, ends enqueue_failed, and the retry creates one live run', async () => {
    const headers = { 'idempotency-key': `enqueue-fails-${Date.now()}` };
    const before = new Set(await harness.fleet.redis.zrange(harness.fleet.store.keys.runsByTenant('default'), 0, -1));
    // The queues over a connection that was closed: a real enqueue failure ("Connection is closed.").
    const closed = connectRedis(harness.fleet.config.REDIS_URL);
    await closed.quit();
    const healthy = harness.fleet.queues;
    const broken = new QueueShards((queuePrefix) => new FleetQueues(closed, { queuePrefix }), harness.fleet.config.BUILDFLEET_PREFIX, 1, 0);
    harness.fleet.queues = broken;
    let failed;
    try {
      failed = await post('/v1/runs', { prompt: 'Bakery' }, headers);
    } finally {
      harness.fleet.queues = healthy;
      await broken.close().catch(() => undefined);
    }
    expect(failed.statusCode).toBe(500);
    expect(failed.json().error.code).toBe('internal_error');
    const created = (await harness.fleet.redis.zrange(harness.fleet.store.keys.runsByTenant('default'), 0, -1)).filter((id) => !before.has(id));
    expect(created).toHaveLength(1);
    const endedId = created[0]!;
    expect(await harness.fleet.store.getRun(endedId)).toMatchObject({ status: 'failed', error: { code: 'enqueue_failed' } });

    // The client retries with the same key: one new run, with its job; the ended one stays ended.
    const retried = await post('/v1/runs', { prompt: 'Bakery' }, headers);
    expect(retried.statusCode).toBe(202);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    const liveId = retried.json().id as string;
    expect(liveId).not.toBe(endedId);
    expect(await harness.fleet.queues.own.model.getJob(`${liveId}-turn-0`)).toBeTruthy();

    // A reaper sweeping long after the grace resumes neither: one run is live, the other ended.
    const reaper = new RunReaper({ store: harness.fleet.store, queues: harness.fleet.queues, logger: harness.fleet.logger }, { intervalMs: 0, graceMs: 500, maxRecoveries: 3 });
    const report = await reaper.sweep(Date.now() + 3_600_000);
    expect(report.resumed).not.toContain(endedId);
    expect(report.resumed).not.toContain(liveId);
    expect(await harness.fleet.queues.own.jobState('model', `${endedId}-turn-0`)).toBe('unknown');
    expect((await harness.fleet.store.getRun(endedId))?.status).toBe('failed');
  });

  it('answers 400 invalid_header for a malformed key', async () => {
    for (const key of ['has space', 'x'.repeat(201), 'émoji']) {
      const response = await post('/v1/runs', { prompt: 'Bakery' }, { 'idempotency-key': key });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toEqual({ code: 'invalid_header', message: expect.stringContaining('idempotency-key') });
    }
  });
});

describe('GET /v1/runs/:id', () => {
  it('shows status, todos, files, deployments with URLs, usage and timestamps', async () => {
    const run = await harness.newRun({
      status: 'running',
      phase: 'building',
      turn: 3,
      todos: [{ id: 'hero', title: 'Hero section', phase: 'build', done: true }],
    });
    await harness.writeFile(run.id, 'index.html', '<h1>Hi</h1>');
    await harness.writeFile(run.id, 'css/site.css', 'body{}');
    await harness.deploy(run.id, 'dep_one');
    await harness.fleet.store.updateRun(run.id, { liveDeploy: 'dep_one' });

    const response = await get(`/v1/runs/${run.id}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id: run.id,
      status: 'running',
      agent: 'site-builder',
      phase: 'building',
      turn: 3,
      model: 'claude-sonnet-4-5',
      provider: 'anthropic',
      maxTokens: 1024,
      thinking: 'off',
      thinkingBudgetTokens: null,
      effort: null,
      thinkingDisplay: null,
      todos: [{ id: 'hero', title: 'Hero section', phase: 'build', done: true }],
      files: [
        { path: 'css/site.css', bytes: 6 },
        { path: 'index.html', bytes: 11 },
      ],
      deployment: {
        // On the sites origin (BUILDFLEET_SITES_PUBLIC_URL), never the API's.
        latest: { id: 'dep_one', url: `https://sites.example-usercontent.test/sites/${run.id}/d/dep_one/` },
        live: { id: 'dep_one', url: `https://sites.example-usercontent.test/sites/${run.id}/` },
      },
      usage: { input_tokens: 0, cache_write_5m_input_tokens: 0, cache_write_1h_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 },
      cacheHitRatio: null,
      costUsd: 0,
      // Created in the store without budgets (RunEngine.createRun's default): none.
      budget: { usd: null, tokens: null },
      result: null,
      error: null,
      question: null,
      traceId: null,
      createdAt: run.createdAt,
      updatedAt: expect.any(String),
      rerunOf: null,
    });
  });

  it('shows null deployments for a new run', async () => {
    const run = await harness.newRun();
    const body = (await get(`/v1/runs/${run.id}`)).json();
    expect(body.deployment).toEqual({ latest: null, live: null });
    expect(body.files).toEqual([]);
  });
});

describe('unknown and malformed run ids', () => {
  const ids = ['run_doesnotexist123', 'run_x', 'not-a-run', 'run_' + 'a'.repeat(65), "run_12345678'--", 'run_%00abcdefgh'];
  const endpoints: Array<{ method: 'GET' | 'POST'; path: (id: string) => string; payload?: object }> = [
    { method: 'GET', path: (id) => `/v1/runs/${id}` },
    { method: 'GET', path: (id) => `/v1/runs/${id}/events` },
    { method: 'POST', path: (id) => `/v1/runs/${id}/input`, payload: { text: 'hello' } },
    { method: 'POST', path: (id) => `/v1/runs/${id}/cancel` },
  ];
  for (const endpoint of endpoints) {
    it(`${endpoint.method} ${endpoint.path(':id')} answers 404 run_not_found`, async () => {
      for (const id of ids) {
        const response = await harness.app.inject({
          method: endpoint.method,
          url: endpoint.path(id),
          headers: harness.auth,
          ...(endpoint.payload ? { payload: endpoint.payload } : {}),
        });
        expect(response.statusCode, `${endpoint.method} ${endpoint.path(id)}`).toBe(404);
        expect(response.json()).toEqual({ error: { code: 'run_not_found', message: 'No such run.' } });
      }
    });
  }

  it('does not show another tenant’s run, except to an admin key', async () => {
    const run = await harness.fleet.store.createRun({
      tenant: 'someone-else',
      prompt: 'x',
      model: 'm',
      maxTurns: 1,
      maxTokens: 1,
      options: {},
    });
    // The harness's key has the admin scope, which reads every tenant's runs (docs/security.md).
    const reader = await harness.createKey({ tenant: 'default', scopes: ['runs:read'] });
    const response = await harness.app.inject({ method: 'GET', url: `/v1/runs/${run.id}`, headers: { authorization: `Bearer ${reader}` } });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('run_not_found');
    const admin = await get(`/v1/runs/${run.id}`);
    expect(admin.statusCode).toBe(200);
    expect(admin.json().id).toBe(run.id);
  });
});

describe('POST /v1/runs/:id/input', () => {
  it('answers 409 no_open_question when the run asked nothing', async () => {
    const run = await harness.newRun({ status: 'running' });
    const response = await post(`/v1/runs/${run.id}/input`, { text: 'Blue, please' });
    expect(response.statusCode).toBe(409);
    expect(response.json().error.code).toBe('no_open_question');
  });

  it('answers the open question: 202, the run resumes and a resume turn is enqueued', async () => {
    const run = await harness.newRun({
      status: 'waiting_for_input',
      turn: 2,
      question: { toolUseId: 'toolu_ask1', question: 'Which colour?', turn: 2 },
    });
    const response = await post(`/v1/runs/${run.id}/input`, { text: 'Blue, please' });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({ id: run.id, status: 'running' });
    const stored = await harness.fleet.store.getStoredToolResult(run.id, 'toolu_ask1');
    expect(stored?.output).toEqual({ answer: 'Blue, please' });
    expect(await harness.fleet.queues.own.model.getJob(`${run.id}-turn-2-resume-toolu_ask1`)).toBeTruthy();

    const again = await post(`/v1/runs/${run.id}/input`, { text: 'Red' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('no_open_question');
  });

  it('answers 409 run_already_ended for a finished run', async () => {
    const run = await harness.newRun();
    await harness.fleet.store.endRun(run.id, 0, 'succeeded', { result: 'done' });
    const response = await post(`/v1/runs/${run.id}/input`, { text: 'hello' });
    expect(response.statusCode).toBe(409);
    expect(response.json().error.code).toBe('run_already_ended');
  });

  it('validates the body', async () => {
    const run = await harness.newRun({ status: 'running' });
    for (const [payload, mentions] of [
      [{}, 'body.text'],
      [{ text: '' }, 'body.text'],
      [{ text: 'x'.repeat(10_001) }, 'body.text'],
      [{ text: 'ok', extra: 1 }, 'body.extra'],
    ] as const) {
      const response = await post(`/v1/runs/${run.id}/input`, payload);
      expect(response.statusCode).toBe(400);
      expect(response.json().error.message).toContain(mentions);
    }
  });
});

describe('POST /v1/runs/:id/cancel', () => {
  it('cancels (202) then refuses (409 run_already_ended)', async () => {
    const created = (await post('/v1/runs', { prompt: 'Cancel me' })).json();
    const first = await post(`/v1/runs/${created.id}/cancel`);
    expect(first.statusCode).toBe(202);
    expect(first.json()).toEqual({ id: created.id, status: 'cancelled' });
    const run = await harness.fleet.store.getRun(created.id);
    expect(run?.status).toBe('cancelled');
    expect(run?.error?.code).toBe('cancelled');

    const second = await post(`/v1/runs/${created.id}/cancel`);
    expect(second.statusCode).toBe(409);
    expect(second.json().error.code).toBe('run_already_ended');
  });

  it('accepts an empty JSON body (as some clients send)', async () => {
    const run = await harness.newRun();
    const response = await harness.app.inject({
      method: 'POST',
      url: `/v1/runs/${run.id}/cancel`,
      headers: { ...harness.auth, 'content-type': 'application/json' },
      payload: '',
    });
    expect(response.statusCode).toBe(202);
  });
});

describe('health and routing', () => {
  it('GET /healthz and /readyz answer 200', async () => {
    expect((await harness.app.inject({ url: '/healthz' })).json()).toEqual({ ok: true });
    const ready = await harness.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ ok: true });
  });

  it('GET /readyz answers 503 within about a second when Redis is unreachable', async () => {
    const fleet = createFleetContext(
      loadConfig({ REDIS_URL: 'redis://127.0.0.1:1', BUILDFLEET_PREFIX: uniquePrefix('apidead'), LOG_LEVEL: 'silent' }),
      'api',
    );
    const app = await buildApiServer(fleet);
    try {
      const started = Date.now();
      const response = await app.inject({ url: '/readyz' });
      expect(Date.now() - started).toBeLessThan(2_500);
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({ ok: false, error: { code: 'redis_unavailable', message: expect.any(String) } });
    } finally {
      await app.close();
      await fleet.close();
    }
  });

  it('answers 404 not_found for unknown routes and methods', async () => {
    for (const [method, url] of [
      ['GET', '/v2/runs'],
      ['DELETE', '/v1/runs'],
      ['GET', '/'],
      ['PUT', '/v1/runs/run_abcdefgh12'],
    ] as const) {
      const response = await harness.app.inject({ method, url });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: { code: 'not_found', message: 'No such route.' } });
    }
  });

  it('answers malformed URLs and malformed HTTP in the error shape too', async () => {
    const badUrl = await harness.app.inject({ url: '/v1/runs/%E0%A4%A' });
    expect(badUrl.statusCode).toBe(400);
    expect(badUrl.json()).toEqual({ error: { code: 'bad_request', message: 'The URL is malformed.' } });

    const url = new URL(await listening());
    const exchange = (text: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(url.port), url.hostname, () => socket.write(text));
        let received = '';
        socket.on('data', (chunk) => (received += chunk.toString('utf8')));
        socket.on('end', () => resolve(received));
        socket.on('error', reject);
      });
    const garbage = await exchange('NOT HTTP AT ALL\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(garbage.slice(garbage.indexOf('\r\n\r\n') + 4))).toEqual({
      error: { code: 'bad_request', message: 'The request could not be understood.' },
    });
    const hugeHeaders = await exchange(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`);
    expect(hugeHeaders).toMatch(/^HTTP\/1\.1 431 /);
    expect(hugeHeaders).toContain('"code":"headers_too_large"');
  });

  it('answers 500 internal_error without leaking the cause', async () => {
    const fleet = createFleetContext(
      loadConfig({ REDIS_URL: harness.fleet.config.REDIS_URL, BUILDFLEET_PREFIX: uniquePrefix('apiboom'), LOG_LEVEL: 'silent', BUILDFLEET_AUTH: 'disabled' }),
      'api',
    );
    vi.spyOn(fleet.store, 'getRun').mockRejectedValue(new Error('ECONNRESET at secret-host:6379 with password hunter2'));
    const app = await buildApiServer(fleet);
    try {
      const response = await app.inject({ url: '/v1/runs/run_abcdefgh1234' });
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual({ error: { code: 'internal_error', message: 'Something went wrong on our side.' } });
      expect(response.body).not.toContain('secret');
    } finally {
      await app.close();
      await fleet.close();
    }
  });
});
