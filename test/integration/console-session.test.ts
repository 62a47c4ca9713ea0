// The console's server over real HTTP on loopback, beside a whole in-process fleet: what sign-in
// stores and answers, what reaches the API through it (JSON and a live event stream), and what it
// refuses — no session, a cross-origin request, a key revoked since sign-in, a signed-out session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/auth/api-key-store.js';
import { CONSOLE_CONTENT_SECURITY_POLICY } from '../../src/console/console-security-headers.js';
import { scanKeys } from '../../src/redis/redis-scan.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

const TTL_SECONDS = 600;
let fleet: InProcessFleet;
let consoleUrl: string;
let keys: ApiKeyStore;

beforeAll(async () => {
  fleet = await startInProcessFleet({
    label: 'consolesession',
    // Its port chosen with the API's and the sites' (freePorts).
    console: true,
    env: { BUILDFLEET_CONSOLE_SESSION_TTL_SECONDS: String(TTL_SECONDS), BUILDFLEET_RATE_LIMIT_PER_MINUTE: '0' },
  });
  consoleUrl = fleet.consoleUrl!;
  keys = new ApiKeyStore({ redis: fleet.fleet.redis, keys: fleet.fleet.store.keys });
});

afterAll(async () => {
  await fleet?.close();
});

/** Signs in with a key; returns the Cookie header to send after. */
async function signIn(apiKey: string): Promise<string> {
  const response = await fetch(`${consoleUrl}/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin: consoleUrl }, body: JSON.stringify({ apiKey }) });
  expect(response.status).toBe(201);
  const setCookie = response.headers.get('set-cookie') ?? '';
  return setCookie.split(';')[0]!;
}

/** Every console session key, on every primary (KEYS would read one node of a cluster). */
async function sessionKeys(): Promise<string[]> {
  const found: string[] = [];
  for await (const page of scanKeys(fleet.fleet.redis, `${fleet.config.BUILDFLEET_PREFIX}:console:session:*`)) found.push(...page);
  return found;
}

describe('console sessions', () => {
  it('serves its page under a strict CSP that forbids framing', async () => {
    const response = await fetch(`${consoleUrl}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toBe(CONSOLE_CONTENT_SECURITY_POLICY);
    expect(CONSOLE_CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-/);
    expect(CONSOLE_CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(await response.text()).toContain('/assets/console.js');
    expect((await fetch(`${consoleUrl}/assets/console.js`)).headers.get('content-type')).toContain('text/javascript');
  });

  it('refuses a key that is not valid, and a body that is not a key', async () => {
    const wrong = await fetch(`${consoleUrl}/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin: consoleUrl }, body: JSON.stringify({ apiKey: `bf_${'x'.repeat(43)}` }) });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('console_sign_in_refused');
    const malformed = await fetch(`${consoleUrl}/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin: consoleUrl }, body: JSON.stringify({ key: 'x' }) });
    expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe('console_invalid_body');
    expect(await sessionKeys()).toEqual([]);
  });

  it('keeps a signed-in session in Redis with a TTL, the key sealed, and tells the page everything but the key', async () => {
    const response = await fetch(`${consoleUrl}/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin: consoleUrl }, body: JSON.stringify({ apiKey: fleet.apiKey }) });
    expect(response.status).toBe(201);
    const setCookie = response.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^bf_console=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=600; HttpOnly; SameSite=Strict$/);
    const body = await response.text();
    expect(body).not.toContain(fleet.apiKey);
    expect(JSON.parse(body)).toMatchObject({ tenant: 'default', scopes: ['admin'], sitesUrl: fleet.sitesUrl, traceUrlTemplate: null });
    const [stored] = await sessionKeys();
    const ttl = await fleet.fleet.redis.ttl(stored!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(TTL_SECONDS);
    const value = (await fleet.fleet.redis.get(stored!)) ?? '';
    expect(value).not.toContain(fleet.apiKey);
    // Redis holds the id's hash, not the id the cookie carries.
    const cookie = setCookie.split(';')[0]!;
    expect(stored).not.toContain(cookie.split('=')[1]);
    const session = await fetch(`${consoleUrl}/session`, { headers: { cookie } });
    expect(await session.json()).toMatchObject({ tenant: 'default' });
    // Each request renews the session, in Redis and in the browser alike: the cookie is sent
    // again with its full lifetime, so an active user is never signed out mid-work.
    expect(session.headers.get('set-cookie')).toBe(setCookie);
    await fetch(`${consoleUrl}/session`, { method: 'DELETE', headers: { cookie, origin: consoleUrl } });
  });

  it('forwards to the API with the session’s key: JSON, a created run, and its live event stream', async () => {
    const cookie = await signIn(fleet.apiKey);
    expect((await fetch(`${consoleUrl}/api/v1/runs`)).status).toBe(401);
    const created = await fetch(`${consoleUrl}/api/v1/runs`, { method: 'POST', headers: { cookie, origin: consoleUrl, 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'A small bakery site.' }) });
    expect(created.status).toBe(202);
    const { id } = (await created.json()) as { id: string };
    // The API's own validation answers through the console unchanged.
    const invalid = await fetch(`${consoleUrl}/api/v1/runs`, { method: 'POST', headers: { cookie, origin: consoleUrl, 'content-type': 'application/json' }, body: JSON.stringify({ prompt: '' }) });
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { error: { code: string } }).error.code).toBe('invalid_body');
    const stream = await fetch(`${consoleUrl}/api/v1/runs/${id}/events`, { headers: { cookie, accept: 'text/event-stream' } });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    // Read until the API ends the stream with the run's end.
    const text = await stream.text();
    expect(text).toContain('"event":"turn-start"');
    expect(text).toContain('"event":"tool-call-end"');
    expect(text).toMatch(/event: end\ndata: \{"status":"succeeded"\}/);
    const listed = (await (await fetch(`${consoleUrl}/api/v1/runs?limit=5`, { headers: { cookie } })).json()) as { runs: Array<{ id: string }> };
    expect(listed.runs.map((run) => run.id)).toContain(id);
    expect((await fetch(`${consoleUrl}/api/v2/runs`, { headers: { cookie } })).status).toBe(404);
  });

  it('refuses a request that changes something from another origin, or from no origin', async () => {
    const cookie = await signIn(fleet.apiKey);
    const before = (await fleet.fleet.store.tenantRunIndex('default', { maxScore: '+inf', offset: 0, count: 1000 })).length;
    for (const origin of [fleet.sitesUrl, fleet.apiUrl, 'null', undefined]) {
      const response = await fetch(`${consoleUrl}/api/v1/runs`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', ...(origin ? { origin } : {}) },
        body: JSON.stringify({ prompt: 'A run another origin wants.' }),
      });
      expect(response.status, String(origin)).toBe(403);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('console_cross_origin_refused');
    }
    // A read the browser marks as asked by another site is refused too.
    expect((await fetch(`${consoleUrl}/api/v1/runs`, { headers: { cookie, 'sec-fetch-site': 'same-site' } })).status).toBe(403);
    expect((await fleet.fleet.store.tenantRunIndex('default', { maxScore: '+inf', offset: 0, count: 1000 })).length).toBe(before);
  });

  it('ends the session when its key is revoked, and at sign-out', async () => {
    const created = await keys.create({ tenant: 'default', scopes: ['runs:read'], name: 'revoked in test' });
    const cookie = await signIn(created.token);
    expect((await fetch(`${consoleUrl}/api/v1/runs`, { headers: { cookie } })).status).toBe(200);
    await keys.revoke(created.id);
    const refused = await fetch(`${consoleUrl}/api/v1/runs`, { headers: { cookie } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await fetch(`${consoleUrl}/session`, { headers: { cookie } })).status).toBe(401);

    const again = await signIn(fleet.apiKey);
    const signedOut = await fetch(`${consoleUrl}/session`, { method: 'DELETE', headers: { cookie: again, origin: consoleUrl } });
    expect(signedOut.status).toBe(204);
    expect((await fetch(`${consoleUrl}/api/v1/runs`, { headers: { cookie: again } })).status).toBe(401);
    expect((await fetch(`${consoleUrl}/session`, { headers: { cookie: again } })).status).toBe(401);
  });
});
