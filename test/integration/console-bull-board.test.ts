// Bull Board on the console's origin, over real HTTP on loopback beside a whole in-process fleet
// (real Redis, real workers): an admin session gets the board, its assets and its JSON with the
// fleet's queues, under a CSP relaxed for /queues only; every other request under /queues — no
// session, a key without the admin scope, a key revoked since sign-in — is refused, assets and
// API calls alike; the queues are read-only; and neither the API's nor the sites' origin serves
// the board. Also the admin route the console's admin view reads workers from.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/auth/api-key-store.js';
import { BULL_BOARD_CONTENT_SECURITY_POLICY, CONSOLE_CONTENT_SECURITY_POLICY } from '../../src/console/console-security-headers.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

let fleet: InProcessFleet;
let consoleUrl: string;
let keys: ApiKeyStore;

beforeAll(async () => {
  // The console's port chosen with the API's and the sites' (freePorts): never one just freed.
  fleet = await startInProcessFleet({ label: 'consolebullboard', console: true, env: { BUILDFLEET_RATE_LIMIT_PER_MINUTE: '0' } });
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
  return (response.headers.get('set-cookie') ?? '').split(';')[0]!;
}

async function errorCodeOf(response: Response): Promise<string | undefined> {
  return ((await response.json()) as { error?: { code?: string } }).error?.code;
}

/** The board's page, one of its scripts (named by the page) and its queue list. */
async function boardPaths(cookie: string): Promise<string[]> {
  const page = await fetch(`${consoleUrl}/queues/`, { headers: { cookie } });
  const html = await page.text();
  const script = /<script defer src="(static\/js\/[^"]+\.js)"/.exec(html)?.[1];
  expect(script, html.slice(0, 400)).toBeDefined();
  return ['/queues', '/queues/', `/queues/${script}`, '/queues/api/queues', '/queues/static/favicon-32x32.png'];
}

describe('Bull Board on the console origin', () => {
  let adminCookie: string;

  it('serves an admin session the board, its assets and the fleet queues, relaxing the CSP on /queues only', async () => {
    adminCookie = await signIn(fleet.apiKey);
    const page = await fetch(`${consoleUrl}/queues/`, { headers: { cookie: adminCookie } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toBe(BULL_BOARD_CONTENT_SECURITY_POLICY);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(await page.text()).toContain('<base href="/queues/"');
    // Scripts stay the origin's own, and framing stays forbidden, on the relaxed policy too.
    expect(BULL_BOARD_CONTENT_SECURITY_POLICY).toContain("script-src 'self';");
    expect(BULL_BOARD_CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
    expect(BULL_BOARD_CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");

    for (const path of await boardPaths(adminCookie)) {
      const response = await fetch(`${consoleUrl}${path}`, { headers: { cookie: adminCookie } });
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-security-policy'), path).toBe(BULL_BOARD_CONTENT_SECURITY_POLICY);
    }
    const listed = (await (await fetch(`${consoleUrl}/queues/api/queues`, { headers: { cookie: adminCookie } })).json()) as { queues: Array<{ name: string; readOnlyMode: boolean }> };
    expect(listed.queues.map((queue) => queue.name).sort()).toEqual(['archive', 'model', 'tool', 'webhook']);
    expect(listed.queues.every((queue) => queue.readOnlyMode)).toBe(true);
    // The console's own pages keep the strict policy.
    expect((await fetch(`${consoleUrl}/`)).headers.get('content-security-policy')).toBe(CONSOLE_CONTENT_SECURITY_POLICY);
  });

  it('keeps the queues read-only: an action on a job or a queue is refused by the server', async () => {
    const paused = await fetch(`${consoleUrl}/queues/api/queues/model/pause`, { method: 'PUT', headers: { cookie: adminCookie, origin: consoleUrl } });
    expect(paused.status).toBe(405);
    expect(await fleet.fleet.queues.own.model.isPaused()).toBe(false);
    // An action from another origin does not reach the board at all (CSRF).
    const crossOrigin = await fetch(`${consoleUrl}/queues/api/queues/model/pause`, { method: 'PUT', headers: { cookie: adminCookie, origin: 'http://127.0.0.1:1' } });
    expect(crossOrigin.status).toBe(403);
    expect(await errorCodeOf(crossOrigin)).toBe('console_cross_origin_refused');
  });

  it('refuses every request under /queues without a session, page, assets and API alike', async () => {
    for (const path of await boardPaths(adminCookie)) {
      const response = await fetch(`${consoleUrl}${path}`);
      expect(response.status, path).toBe(401);
      expect(await errorCodeOf(response), path).toBe('console_not_signed_in');
    }
  });

  it('refuses a session whose key lacks the admin scope with 403, assets and API alike', async () => {
    const reader = await keys.create({ tenant: 'default', scopes: ['runs:read', 'runs:write'] });
    const cookie = await signIn(reader.token);
    for (const path of await boardPaths(adminCookie)) {
      const response = await fetch(`${consoleUrl}${path}`, { headers: { cookie } });
      expect(response.status, path).toBe(403);
      expect(await errorCodeOf(response), path).toBe('console_admin_only');
    }
    // The forward refuses the admin routes as the API does.
    const forwarded = await fetch(`${consoleUrl}/api/v1/admin/workers`, { headers: { cookie } });
    expect(forwarded.status).toBe(403);
  });

  it('ends the board for an admin key revoked since sign-in, at its next request', async () => {
    const key = await keys.create({ tenant: 'default', scopes: ['admin'] });
    const cookie = await signIn(key.token);
    expect((await fetch(`${consoleUrl}/queues/api/queues`, { headers: { cookie } })).status).toBe(200);
    expect(await keys.revoke(key.id)).toBeTruthy();
    const after = await fetch(`${consoleUrl}/queues/api/queues`, { headers: { cookie } });
    expect(after.status).toBe(401);
    expect(await errorCodeOf(after)).toBe('console_not_signed_in');
    expect(after.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    // The session is gone: the console's own routes see no session either.
    expect((await fetch(`${consoleUrl}/session`, { headers: { cookie } })).status).toBe(401);
  });

  it('is not served on the API origin nor the sites origin', async () => {
    for (const base of [fleet.apiUrl, fleet.sitesUrl]) {
      for (const path of ['/queues', '/queues/', '/queues/api/queues']) {
        const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${fleet.apiKey}` } });
        expect(response.status, `${base}${path}`).toBe(404);
      }
    }
  });
});

describe('GET /v1/admin/workers', () => {
  it('lists the workers connected to each queue, by the names the fleet gives them', async () => {
    const response = await fetch(`${fleet.apiUrl}/v1/admin/workers`, { headers: { authorization: `Bearer ${fleet.apiKey}` } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { queues: Record<string, Array<{ name: string | null; address: string | null; connected_seconds: number | null; idle_seconds: number | null }>> };
    expect(Object.keys(body.queues).sort()).toEqual(['archive', 'model', 'tool', 'webhook']);
    // The in-process fleet runs one model and one tool worker, named host:pid:role.
    expect(body.queues.model!.map((worker) => worker.name)).toEqual([expect.stringMatching(new RegExp(`:${process.pid}:model$`))]);
    expect(body.queues.tool!.map((worker) => worker.name)).toEqual([expect.stringMatching(new RegExp(`:${process.pid}:tool$`))]);
    for (const worker of [...body.queues.model!, ...body.queues.tool!]) {
      expect(worker.address).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(worker.connected_seconds).toBeGreaterThanOrEqual(0);
      expect(worker.idle_seconds).toBeGreaterThanOrEqual(0);
    }
  });

  it('needs the admin scope', async () => {
    const reader = await keys.create({ tenant: 'default', scopes: ['runs:read'] });
    const response = await fetch(`${fleet.apiUrl}/v1/admin/workers`, { headers: { authorization: `Bearer ${reader.token}` } });
    expect(response.status).toBe(403);
  });
});
