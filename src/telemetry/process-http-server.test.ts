import { Agent, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startProcessHttpServer, type ProcessHttpServer } from './process-http-server.js';

const servers: ProcessHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(options: Partial<Parameters<typeof startProcessHttpServer>[0]> = {}): Promise<ProcessHttpServer> {
  const server = await startProcessHttpServer({ port: 0, host: '127.0.0.1', ready: async () => true, ...options });
  servers.push(server);
  return server;
}

describe('startProcessHttpServer', () => {
  it('answers /healthz while running and binds the real port when asked for 0', async () => {
    const server = await start();
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('answers /readyz 200 when ready, 503 when not, when the check throws, or when it hangs', async () => {
    let ready: () => Promise<boolean> = async () => true;
    const server = await start({ ready: () => ready() });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    ready = async () => false;
    const notReady = await fetch(`${server.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({ ok: false });
    ready = async () => {
      throw new Error('redis gone');
    };
    expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
    ready = () => new Promise<boolean>(() => undefined);
    const started = Date.now();
    expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('serves /metrics from metrics(), or 404 when the process has none', async () => {
    const without = await start();
    expect((await fetch(`${without.url}/metrics`)).status).toBe(404);
    const withMetrics = await start({ metrics: async () => ({ contentType: 'text/plain; version=0.0.4', body: 'buildfleet_up 1\n' }) });
    const response = await fetch(`${withMetrics.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4');
    expect(await response.text()).toBe('buildfleet_up 1\n');
  });

  it('answers 500 when metrics() fails, 404 for other paths and 405 for other methods', async () => {
    const server = await start({ metrics: async () => Promise.reject(new Error('registry broke')) });
    expect((await fetch(`${server.url}/metrics`)).status).toBe(500);
    expect((await fetch(`${server.url}/nope`)).status).toBe(404);
    const post = await fetch(`${server.url}/healthz`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await fetch(`${server.url}/healthz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('closes promptly even with an idle keep-alive connection open', async () => {
    const server = await startProcessHttpServer({ port: 0, host: '127.0.0.1', ready: async () => true });
    await new Promise<void>((resolve, reject) => {
      const outgoing = request(`${server.url}/healthz`, { agent: new Agent({ keepAlive: true }) }, (response) => {
        response.resume();
        response.on('end', () => resolve());
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('rejects when the port is taken', async () => {
    const first = await start();
    await expect(startProcessHttpServer({ port: first.port, host: '127.0.0.1', ready: async () => true })).rejects.toThrow(/EADDRINUSE/);
  });
});
