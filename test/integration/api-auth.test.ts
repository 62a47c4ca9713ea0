// Authentication and scopes: bearer API keys stored as hashes, 401 with a Bearer challenge for a
// missing, malformed, unknown or revoked key, 403 for a missing scope, public routes open to all,
// and BUILDFLEET_AUTH=disabled for local experiments.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiTestHarness, type ApiTestHarness } from '../../src/api/testing/api-test-harness.js';

let harness: ApiTestHarness;
let readKey: string;
let writeKey: string;

beforeAll(async () => {
  harness = await createApiTestHarness({ label: 'apiauth' });
  readKey = await harness.createKey({ tenant: 'default', scopes: ['runs:read'], name: 'reader' });
  writeKey = await harness.createKey({ tenant: 'default', scopes: ['runs:write'] });
});

afterAll(async () => {
  await harness.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function call(method: 'GET' | 'POST', url: string, headers: Record<string, string> = {}, payload?: object) {
  return harness.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
}

describe('protected routes without a valid key', () => {
  let runId: string;
  beforeAll(async () => {
    runId = (await harness.newRun()).id;
  });

  const routes = (): Array<[string, 'GET' | 'POST', string, object?]> => [
    ['create', 'POST', '/v1/runs', { prompt: 'x' }],
    ['list', 'GET', '/v1/runs'],
    ['get', 'GET', `/v1/runs/${runId}`],
    ['events', 'GET', `/v1/runs/${runId}/events`],
    ['input', 'POST', `/v1/runs/${runId}/input`, { text: 'x' }],
    ['cancel', 'POST', `/v1/runs/${runId}/cancel`],
    ['queues', 'GET', '/v1/admin/queues'],
    ['kill switch', 'GET', '/v1/admin/killswitch'],
    ['kill switch change', 'POST', '/v1/admin/killswitch', { mode: 'read_only' }],
  ];

  it('answer 401 unauthorized with a Bearer challenge when no key is sent', async () => {
    for (const [name, method, url, payload] of routes()) {
      const response = await call(method, url, {}, payload);
      expect(response.statusCode, name).toBe(401);
      expect(response.json(), name).toEqual({ error: { code: 'unauthorized', message: expect.stringContaining('Bearer') } });
      expect(response.headers['www-authenticate'], name).toBe('Bearer realm="buildfleet"');
    }
    // The HEAD routes Fastify adds for GET routes are guarded the same way.
    for (const url of ['/v1/runs', `/v1/runs/${runId}`, `/v1/runs/${runId}/events`, '/v1/admin/queues', '/v1/admin/killswitch']) {
      expect((await harness.app.inject({ method: 'HEAD', url })).statusCode, `HEAD ${url}`).toBe(401);
    }
    // Nothing happened: no run created, the run not cancelled, the kill switch untouched.
    expect((await harness.fleet.store.getRun(runId))?.status).toBe('queued');
    expect(await harness.fleet.redis.zcard(harness.fleet.store.keys.runsByTenant('default'))).toBe(1);
  });

  it.each([
    ['Basic dXNlcjpwYXNz', 'invalid_request'],
    ['Bearer', 'invalid_request'],
    ['Bearer ', 'invalid_request'],
    ['Token bf_abc', 'invalid_request'],
    ['Bearer bf_short', 'invalid_token'],
    ['Bearer bf_' + 'a'.repeat(43), 'invalid_token'],
    ['Bearer bf_' + 'a'.repeat(44), 'invalid_token'],
    ['Bearer sk-ant-' + 'a'.repeat(40), 'invalid_token'],
    ['Bearer ' + 'x'.repeat(4000), 'invalid_token'],
    ['Bearer bf_ünïcödé', 'invalid_token'],
  ])('answers 401 for Authorization: %s', async (header, error) => {
    const response = await call('GET', '/v1/runs', { authorization: header });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('unauthorized');
    expect(response.headers['www-authenticate']).toBe(`Bearer realm="buildfleet", error="${error}"`);
  });

  it('checks the key before reading the body: a 1 MB body without a key is 401, not 413', async () => {
    const response = await call('POST', '/v1/runs', { 'content-type': 'application/json' }, { prompt: 'x'.repeat(1024 * 1024) });
    expect(response.statusCode).toBe(401);
  });
});

describe('valid keys', () => {
  it('accept the scheme in any case', async () => {
    expect((await call('GET', '/v1/runs', { authorization: `bearer ${harness.apiKey}` })).statusCode).toBe(200);
    expect((await call('GET', '/v1/runs', { authorization: `BEARER ${harness.apiKey}` })).statusCode).toBe(200);
  });

  it('answer 403 forbidden naming the missing scope', async () => {
    const denied = await call('POST', '/v1/runs', bearer(readKey), { prompt: 'x' });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: { code: 'forbidden', message: expect.stringContaining('runs:write') } });
    expect(denied.headers['www-authenticate']).toBe('Bearer realm="buildfleet", error="insufficient_scope", scope="runs:write"');
    expect((await call('GET', '/v1/runs', bearer(readKey))).statusCode).toBe(200);

    const created = await call('POST', '/v1/runs', bearer(writeKey), { prompt: 'x' });
    expect(created.statusCode).toBe(202);
    expect((await call('GET', `/v1/runs/${created.json().id}`, bearer(writeKey))).statusCode).toBe(403);
    expect((await call('POST', `/v1/runs/${created.json().id}/cancel`, bearer(readKey))).statusCode).toBe(403);
    expect((await call('POST', `/v1/runs/${created.json().id}/cancel`, bearer(writeKey))).statusCode).toBe(202);
  });

  it('need admin for the admin routes; admin includes every other scope', async () => {
    for (const token of [readKey, writeKey]) {
      expect((await call('GET', '/v1/admin/queues', bearer(token))).statusCode).toBe(403);
      expect((await call('GET', '/v1/admin/killswitch', bearer(token))).statusCode).toBe(403);
    }
    expect((await call('GET', '/v1/admin/queues', harness.auth)).statusCode).toBe(200);
    expect((await call('POST', '/v1/runs', harness.auth, { prompt: 'x' })).statusCode).toBe(202);
  });

  it('stop working the moment they are revoked', async () => {
    const token = await harness.createKey({ tenant: 'default', scopes: ['runs:read'] });
    expect((await call('GET', '/v1/runs', bearer(token))).statusCode).toBe(200);
    const [listed] = (await harness.keyStore.list({ tenant: 'default' })).filter((key) => key.revoked === null && key.scopes.join() === 'runs:read' && key.name === null);
    expect(await harness.keyStore.revoke(listed!.id)).toBe('revoked');
    const response = await call('GET', '/v1/runs', bearer(token));
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toContain('invalid_token');
    expect(await harness.keyStore.revoke(listed!.id)).toBe('already_revoked');
    expect(await harness.keyStore.revoke('key_0000000000000000')).toBe('not_found');
  });
});

describe('key storage', () => {
  it('keeps only a SHA-256 of the key, never the key itself', async () => {
    const { id, token } = await harness.keyStore.create({ tenant: 'acme', scopes: ['runs:read', 'runs:write'], name: 'ci' });
    expect(token).toMatch(/^bf_[A-Za-z0-9_-]{43}$/);
    const stored = await harness.fleet.redis.hgetall(harness.fleet.store.keys.apiKeys());
    expect(JSON.stringify(stored)).not.toContain(token);
    expect(JSON.parse(stored[id]!)).toEqual({
      hash: createHash('sha256').update(token).digest('hex'),
      tenant: 'acme',
      scopes: ['runs:read', 'runs:write'],
      name: 'ci',
      created: expect.any(String),
      revoked: null,
    });
    const listed = await harness.keyStore.list({ tenant: 'acme' });
    expect(listed).toEqual([{ id, tenant: 'acme', scopes: ['runs:read', 'runs:write'], name: 'ci', created: expect.any(String), revoked: null }]);
    expect(JSON.stringify(listed)).not.toContain(token);
  });

  it('refuses tenants that could not be part of a Redis key', async () => {
    for (const tenant of ['', 'a b', 'a:b', '{x}', '-x', 'x'.repeat(65)]) {
      await expect(harness.keyStore.create({ tenant, scopes: ['runs:read'] })).rejects.toThrow('invalid tenant');
    }
  });
});

describe('public routes', () => {
  it('need no key: health, docs, and the redirect of sites to their own origin', async () => {
    expect((await call('GET', '/healthz')).statusCode).toBe(200);
    expect((await call('GET', '/readyz')).statusCode).toBe(200);
    expect((await call('GET', '/docs/json')).statusCode).toBe(200);
    expect((await call('GET', '/docs')).statusCode).toBe(200);
    const run = await harness.newRun({ status: 'running' });
    await harness.writeFile(run.id, 'index.html', '<html>public</html>');
    await harness.deploy(run.id, 'dep_pub');
    await harness.fleet.store.updateRun(run.id, { liveDeploy: 'dep_pub' });
    const site = await call('GET', `/sites/${run.id}/`);
    expect(site.statusCode).toBe(308);
    expect(site.body).not.toContain('public');
    const onSitesOrigin = await harness.sites.inject({ method: 'GET', url: `/sites/${run.id}/` });
    expect(onSitesOrigin.statusCode).toBe(200);
    expect(onSitesOrigin.body).toContain('public');
    // An unknown route is 404 whoever asks.
    expect((await call('GET', '/v2/nothing')).statusCode).toBe(404);
  });

  it('are marked public in the OpenAPI document; the others name the bearer scheme', async () => {
    const document = (await call('GET', '/docs/json')).json() as {
      components: { securitySchemes: Record<string, unknown> };
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.paths['/healthz']!.get!.security).toEqual([]);
    expect(document.paths['/sites/{path}']!.get!.security).toEqual([]);
    expect(document.paths['/v1/runs']!.post!.security).toEqual([{ bearerAuth: [] }]);
    expect(document.paths['/v1/admin/killswitch']!.post!.security).toEqual([{ bearerAuth: [] }]);
  });
});

describe('BUILDFLEET_AUTH=disabled', () => {
  it('lets every request in as tenant default with every scope', async () => {
    const open = await createApiTestHarness({ label: 'apiauthoff', environment: { BUILDFLEET_AUTH: 'disabled' } });
    try {
      const created = await open.app.inject({ method: 'POST', url: '/v1/runs', payload: { prompt: 'x' } });
      expect(created.statusCode).toBe(202);
      expect((await open.fleet.store.getRun(created.json().id))?.tenant).toBe('default');
      expect((await open.app.inject({ url: '/v1/admin/queues' })).statusCode).toBe(200);
    } finally {
      await open.close();
    }
  });
});
