import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHttpServer, type TestHttpServer } from '../testing/start-test-http-server.js';
import { ToolError } from '../tool-types.js';
import { fetchWithLimits, FETCH_MAX_BYTES } from './fetch-with-limits.js';

let site: TestHttpServer;
let outside: TestHttpServer;
let policy: { publicBaseUrl: string; allowlist: string };

beforeAll(async () => {
  outside = await startTestHttpServer((_request, response) => response.end('outside'));
  site = await startTestHttpServer((request, response) => {
    const url = request.url ?? '/';
    const hops = /^\/hop\/(\d+)$/.exec(url);
    if (hops) {
      const remaining = Number(hops[1]);
      response.writeHead(302, { location: remaining === 0 ? '/final' : `/hop/${remaining - 1}` }).end();
    } else if (url === '/final') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<title>Final</title>');
    } else if (url === '/relative') {
      response.writeHead(301, { location: 'final' }).end();
    } else if (url === '/to-outside') {
      response.writeHead(307, { location: `${outside.origin}/` }).end();
    } else if (url === '/huge') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const pump = () => {
        while (sent < 4 * 1024 * 1024) {
          sent += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end();
      };
      response.on('error', () => undefined);
      pump();
    } else if (url === '/slow') {
      setTimeout(() => response.end('late'), 2_000).unref();
    } else {
      response.writeHead(404).end('not here');
    }
  });
  policy = { publicBaseUrl: site.origin, allowlist: '' };
});
afterAll(async () => {
  await site.close();
  await outside.close();
});

const signal = new AbortController().signal;

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (ToolError.isInstance(error)) return error.code;
    throw error;
  }
}

describe('fetchWithLimits', () => {
  it('follows up to 5 redirects by hand', async () => {
    const response = await fetchWithLimits({ url: `${site.origin}/hop/4`, policy, signal });
    expect(response).toMatchObject({ finalUrl: `${site.origin}/final`, status: 200, contentType: 'text/html', redirects: 5, truncated: false });
    expect(response.body.toString()).toBe('<title>Final</title>');
  });

  it('refuses a sixth redirect', async () => {
    expect(await codeOf(fetchWithLimits({ url: `${site.origin}/hop/5`, policy, signal }))).toBe('fetch_too_many_redirects');
  });

  it('resolves relative Location headers', async () => {
    expect((await fetchWithLimits({ url: `${site.origin}/relative`, policy, signal })).finalUrl).toBe(`${site.origin}/final`);
  });

  it('checks every redirect hop against the policy', async () => {
    expect(await codeOf(fetchWithLimits({ url: `${site.origin}/to-outside`, policy, signal }))).toBe('fetch_blocked');
    expect(outside.requests).toEqual([]);
    const widened = { ...policy, allowlist: outside.origin };
    expect((await fetchWithLimits({ url: `${site.origin}/to-outside`, policy: widened, signal })).body.toString()).toBe('outside');
  });

  it('stops reading at the byte cap', async () => {
    const response = await fetchWithLimits({ url: `${site.origin}/huge`, policy, signal });
    expect(response.truncated).toBe(true);
    expect(response.body.length).toBe(FETCH_MAX_BYTES);
  });

  it('times out slow responses', async () => {
    expect(await codeOf(fetchWithLimits({ url: `${site.origin}/slow`, policy, signal, timeoutMs: 200 }))).toBe('fetch_timeout');
  });

  it('rethrows (not a ToolError) when the caller cancels', async () => {
    const controller = new AbortController();
    const pending = fetchWithLimits({ url: `${site.origin}/slow`, policy, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('worker shutting down')), 50);
    const error = await pending.catch((caught: unknown) => caught);
    expect(ToolError.isInstance(error)).toBe(false);
  });

  it('reports network failures as fetch_failed', async () => {
    const closed = await startTestHttpServer(() => undefined);
    await closed.close();
    const closedPolicy = { publicBaseUrl: closed.origin, allowlist: '' };
    expect(await codeOf(fetchWithLimits({ url: `${closed.origin}/`, policy: closedPolicy, signal }))).toBe('fetch_failed');
  });

  it('does HEAD without a body', async () => {
    const response = await fetchWithLimits({ url: `${site.origin}/final`, policy, signal, method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.body.length).toBe(0);
    expect(site.requests).toContain('HEAD /final');
  });
});
