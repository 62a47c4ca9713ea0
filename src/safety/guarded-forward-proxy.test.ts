// The guarded forward proxy on its own, spoken to the way Chromium speaks to it (absolute-form
// requests and CONNECT), with the fetch tools' policy (browser-egress-policy.ts) and canary
// listeners on loopback that must never see a connection.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCanaryListener, type CanaryListener } from '../../test/support/canary-listener.js';
import { decideBrowserEgress } from '../tools/http/browser-egress-policy.js';
import type { FetchTargetPolicy } from '../tools/http/check-fetch-target.js';
import { startTestHttpServer, type TestHttpServer } from '../tools/testing/start-test-http-server.js';
import { parseConnectAuthority, PROXY_ANSWER_HEADER, startGuardedForwardProxy, type GuardedForwardProxy } from './guarded-forward-proxy.js';
import type { HostResolver } from './ssrf-guard.js';

let canary: CanaryListener;
let canary6: CanaryListener | null;
let site: TestHttpServer;
let siteHeaders: IncomingHttpHeaders[];
let siteBodies: string[];
let policy: FetchTargetPolicy;

/** Scripted DNS: names that resolve to loopback, as a hostile DNS answer would. */
const resolveHost: HostResolver = async (hostname) => {
  if (hostname === 'loopback.test') return [{ address: '127.0.0.1', family: 4 }];
  if (hostname === 'loopback6.test') return [{ address: '::1', family: 6 }];
  if (hostname === 'mixed.test') {
    return [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
  }
  throw Object.assign(new Error(`${hostname} is not scripted`), { code: 'ENOTFOUND' });
};

beforeAll(async () => {
  canary = (await startCanaryListener('127.0.0.1'))!;
  canary6 = await startCanaryListener('::1');
  siteHeaders = [];
  siteBodies = [];
  site = await startTestHttpServer((request, response) => {
    siteHeaders.push(request.headers);
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      siteBodies.push(body);
      response.setHeader('set-cookie', ['a=1', 'b=2']);
      response.writeHead(200, { 'content-type': 'text/plain', connection: 'close, x-hop', 'x-hop': 'dropped' }).end(`site ${request.url}`);
    });
  });
  // Public hosts allowed, as by default: only the address checks stand between a name and loopback.
  policy = { publicBaseUrl: site.origin, allowlist: '', allowPublic: true };
});

afterAll(async () => {
  await Promise.all([canary?.close(), canary6?.close(), site?.close()]);
});

async function withProxy(test: (proxy: GuardedForwardProxy) => Promise<void>): Promise<GuardedForwardProxy> {
  const proxy = await startGuardedForwardProxy({ checkTarget: (target) => decideBrowserEgress({ target, policy }), resolve: resolveHost });
  try {
    await test(proxy);
  } finally {
    await proxy.close();
  }
  return proxy;
}

interface ProxiedAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An absolute-form request through the proxy (what Chromium sends for http: URLs). */
function requestThrough(proxy: GuardedForwardProxy, target: string, init: { method?: string; body?: string } = {}): Promise<ProxiedAnswer> {
  const { port } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: '127.0.0.1', port: Number(port), method: init.method ?? 'GET', path: target, headers: { 'proxy-connection': 'keep-alive', 'x-page': 'yes' }, agent: false },
      (incoming) => {
        let body = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (body += chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(init.body);
  });
}

/** A CONNECT through the proxy (what Chromium sends for https, ws and wss). */
function connectThrough(proxy: GuardedForwardProxy, authority: string): Promise<{ status: number; headers: IncomingHttpHeaders; socket: Socket }> {
  const { port } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port: Number(port), method: 'CONNECT', path: authority, agent: false });
    outgoing.on('connect', (incoming, socket: Socket) => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, socket }));
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** Speaks HTTP/1.1 over an established tunnel and returns the whole answer. */
function httpOverTunnel(socket: Socket, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.write(`GET /through-tunnel HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  });
}

describe('guarded forward proxy: refused targets', () => {
  it('answers 403 to an absolute-form request for a loopback canary and never connects to it', async () => {
    const before = canary.connections;
    const proxy = await withProxy(async (proxy) => {
      const answer = await requestThrough(proxy, `http://127.0.0.1:${canary.port}/secret`);
      expect(answer.status).toBe(403);
      expect(answer.headers[PROXY_ANSWER_HEADER]).toBe(proxy.proxyAnswerMarker);
      expect(answer.body).toContain('loopback');
    });
    expect(canary.connections).toBe(before);
    expect(proxy.refusals()).toEqual({
      count: 1,
      first: [{ request: `GET http://127.0.0.1:${canary.port}/secret`, reason: expect.stringContaining('loopback') }],
    });
  });

  it('answers 403 to a CONNECT to a loopback canary (IPv4, IPv6, and spellings URL parsing normalizes)', async () => {
    const before = canary.connections + (canary6?.connections ?? 0);
    const authorities = [
      canary.authority,
      `[::1]:${canary6?.port ?? 9}`,
      `2130706433:${canary.port}`,
      `0x7f.1:${canary.port}`,
      `[::ffff:127.0.0.1]:${canary.port}`,
      `localhost:${canary.port}`,
      `0.0.0.0:${canary.port}`,
    ];
    const proxy = await withProxy(async (proxy) => {
      for (const authority of authorities) {
        const { status, headers, socket } = await connectThrough(proxy, authority);
        socket.destroy();
        expect(status, authority).toBe(403);
        expect(headers[PROXY_ANSWER_HEADER], authority).toBe(proxy.proxyAnswerMarker);
      }
    });
    expect(canary.connections + (canary6?.connections ?? 0)).toBe(before);
    expect(proxy.refusals().count).toBe(authorities.length);
    expect(proxy.refusals().first.map((refusal) => refusal.request)).toEqual(authorities.map((authority) => `CONNECT ${authority}`));
  });

  it('refuses names whose DNS answer is loopback, on both paths, without connecting (the lookup is the guard)', async () => {
    const before = canary.connections + (canary6?.connections ?? 0);
    const proxy = await withProxy(async (proxy) => {
      expect((await requestThrough(proxy, `http://loopback.test:${canary.port}/`)).status).toBe(403);
      expect((await requestThrough(proxy, `http://mixed.test:${canary.port}/`)).status).toBe(403);
      const tunnel = await connectThrough(proxy, `loopback.test:${canary.port}`);
      tunnel.socket.destroy();
      expect(tunnel.status).toBe(403);
      const tunnel6 = await connectThrough(proxy, `loopback6.test:${canary6?.port ?? 9}`);
      tunnel6.socket.destroy();
      expect(tunnel6.status).toBe(403);
    });
    expect(canary.connections + (canary6?.connections ?? 0)).toBe(before);
    expect(proxy.refusals().first.map((refusal) => refusal.reason)).toEqual([
      expect.stringContaining('resolves to 127.0.0.1'),
      expect.stringContaining('resolves to 127.0.0.1'),
      expect.stringContaining('resolves to 127.0.0.1'),
      expect.stringContaining('resolves to ::1'),
    ]);
  });

  it('refuses another port of the allowed host, an https absolute-form request and an origin-form request', async () => {
    const before = canary.connections;
    const proxy = await withProxy(async (proxy) => {
      expect((await requestThrough(proxy, `http://127.0.0.1:${canary.port}/`)).status).toBe(403);
      expect((await requestThrough(proxy, `https://127.0.0.1:${canary.port}/`)).status).toBe(403);
      expect((await requestThrough(proxy, '/just-a-path')).status).toBe(403);
    });
    expect(canary.connections).toBe(before);
    expect(proxy.refusals().count).toBe(3);
  });

  it('rejects CONNECT targets that are not host:port', () => {
    for (const bad of ['127.0.0.1', 'user@127.0.0.1:80', '127.0.0.1:80/path', 'host:0', 'host:70000', '[::1', '']) {
      expect(parseConnectAuthority(bad), bad).toBeNull();
    }
    expect(parseConnectAuthority('2130706433:80')).toEqual({ hostname: '127.0.0.1', port: 80 });
    expect(parseConnectAuthority('[::1]:443')).toEqual({ hostname: '[::1]', port: 443 });
  });
});

describe('guarded forward proxy: the allowed origin', () => {
  it('relays requests to exactly the allowed origin, without hop-by-hop headers', async () => {
    const proxy = await withProxy(async (proxy) => {
      const answer = await requestThrough(proxy, `${site.origin}/page?x=1`);
      expect(answer).toMatchObject({ status: 200, body: 'site /page?x=1' });
      expect(answer.headers['set-cookie']).toEqual(['a=1', 'b=2']);
      expect(answer.headers['x-hop']).toBeUndefined();
      expect(answer.headers[PROXY_ANSWER_HEADER]).toBeUndefined();
      const posted = await requestThrough(proxy, `${site.origin}/form`, { method: 'POST', body: 'a=b' });
      expect(posted).toMatchObject({ status: 200, body: 'site /form' });
    });
    expect(proxy.refusals().count).toBe(0);
    const seen = siteHeaders.at(-2);
    expect(seen?.host).toBe(new URL(site.origin).host);
    expect(seen?.['x-page']).toBe('yes');
    expect(seen?.['proxy-connection']).toBeUndefined();
    expect(siteBodies.at(-1)).toBe('a=b');
  });

  it('tunnels a CONNECT to the allowed origin host:port', async () => {
    const proxy = await withProxy(async (proxy) => {
      const { status, socket } = await connectThrough(proxy, new URL(site.origin).host);
      expect(status).toBe(200);
      const answer = await httpOverTunnel(socket, new URL(site.origin).host);
      expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(answer).toContain('site /through-tunnel');
    });
    expect(proxy.refusals().count).toBe(0);
  });

  it('answers 502 (marked as its own) when an allowed upstream cannot be reached', async () => {
    const closed = await startTestHttpServer((_request, response) => response.end());
    await closed.close();
    policy = { ...policy, allowlist: closed.origin };
    try {
      await withProxy(async (proxy) => {
        const answer = await requestThrough(proxy, `${closed.origin}/`);
        expect(answer.status).toBe(502);
        expect(answer.headers[PROXY_ANSWER_HEADER]).toBe(proxy.proxyAnswerMarker);
        expect(proxy.refusals().count).toBe(0);
      });
    } finally {
      policy = { ...policy, allowlist: '' };
    }
  });

  it('closes open tunnels when it closes', async () => {
    let socket: Socket | undefined;
    await withProxy(async (proxy) => {
      ({ socket } = await connectThrough(proxy, new URL(site.origin).host));
    });
    await new Promise<void>((resolve) => {
      if (socket?.destroyed || socket?.readableEnded) resolve();
      else socket?.once('close', () => resolve());
    });
    expect(socket?.destroyed || socket?.readableEnded).toBe(true);
  });
});
