// Chromium behind the egress guard, with a real Chromium: a page served from the allowed origin
// (the fleet's own, in these tests a loopback server) tries every way a page can make the browser
// send a request — img, srcset, CSS url() and @import, iframes, fetch, XHR, WebSocket, EventSource,
// beacons, a redirect from the allowed origin, a service worker, prefetch/preload, a form that
// submits itself, a meta refresh, WebRTC (STUN over UDP, TURN over TCP) — at canary listeners on
// 127.0.0.1 and ::1 (other ports of the same host as the allowed origin) and a UDP canary. None may be reached; the guard's refusals are listed in the
// tool's result; the page's legitimate same-origin image still loads.
//
// Skipped, with a printed reason, when no Chromium is installed (test/support/chromium.ts).
import { createSocket, type Socket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumForTests } from '../support/chromium.js';
import { startCanaryListener, type CanaryListener } from '../support/canary-listener.js';
import { PROXY_ANSWER_HEADER, startGuardedForwardProxy, type RefusedRequest } from '../../src/safety/guarded-forward-proxy.js';
import { decideBrowserEgress } from '../../src/tools/http/browser-egress-policy.js';
import type { FetchTargetPolicy } from '../../src/tools/http/check-fetch-target.js';
import { runHeadlessChromium } from '../../src/tools/ops/run-headless-chromium.js';
import { MAX_REPORTED_REFUSALS, pngDimensions, screenshotTool } from '../../src/tools/ops/screenshot.js';
import { readScreenshot } from '../../src/engine/index.js';
import { createToolTestHarness, type ToolTestHarness } from '../../src/tools/testing/tool-test-harness.js';
import { startTestHttpServer, type TestHttpServer } from '../../src/tools/testing/start-test-http-server.js';
import { ONE_PIXEL_PNG } from '../../src/tools/testing/test-images.js';

const binary = await chromiumForTests('screenshot-egress');
// The longest screenshot time the fleet allows: these tests assert what the guard refuses, not how
// fast Chromium is, and a loaded 2-core machine has taken over the default 30 s (seen once).
const LOADED_MACHINE_SCREENSHOT_MS = 55_000;

let canary: CanaryListener;
let canary6: CanaryListener | null;
/** A UDP listener for WebRTC's STUN: Chromium must send it no datagram. */
let udpCanary: { socket: Socket; port: number; datagrams: number };
let site: TestHttpServer;
let harness: ToolTestHarness;

/** Canary URLs, one distinct path per way of making a request. */
const at = (path: string) => `http://${canary.authority}${path}`;
const at6 = (path: string) => (canary6 ? `http://${canary6.authority}${path}` : `http://[::1]:9${path}`);

function hostilePage(): string {
  const redirectTo = encodeURIComponent(at('/redirected.png'));
  return `<!doctype html>
<html><head><title>hostile</title>
<link rel="stylesheet" href="/style.css">
<link rel="stylesheet" href="${at('/stylesheet.css')}">
<link rel="prefetch" href="${at('/prefetch')}">
<link rel="preload" as="image" href="${at6('/preload.png')}">
<link rel="preconnect" href="${at('')}">
<link rel="dns-prefetch" href="//canary.localhost/">
<link rel="icon" href="${at('/favicon.ico')}">
</head><body style="margin:0">
<img id="ok" src="/ok.png" width="200" height="200">
<img src="${at('/img.png')}">
<img src="${at6('/img6.png')}">
<img srcset="${at('/srcset.png')} 1x, ${at('/srcset-2x.png')} 2x">
<picture><source srcset="${at6('/source6.png')}"><img src="/missing-fallback.png"></picture>
<img src="/redirect?to=${redirectTo}">
<img src="http://localhost:${canary.port}/localhost.png">
<img src="http://2130706433:${canary.port}/decimal.png">
<img src="http://[::ffff:127.0.0.1]:${canary.port}/mapped.png">
<img src="http://169.254.169.254/latest/meta-data/">
<iframe src="${at('/iframe.html')}"></iframe>
<iframe src="/frame-form.html"></iframe>
<iframe src="/frame-meta.html"></iframe>
<object data="${at('/object')}"></object>
<video src="${at6('/video.mp4')}" autoplay muted></video>
<div style="width:10px;height:10px;background:url('${at('/inline-style.png')}')"></div>
<script>
  fetch(${JSON.stringify(at('/fetch'))}).catch(() => {});
  fetch(${JSON.stringify(at6('/fetch6'))}, { mode: 'no-cors' }).catch(() => {});
  fetch('https://${canary.authority}/https-fetch').catch(() => {});
  const xhr = new XMLHttpRequest(); xhr.open('GET', ${JSON.stringify(at('/xhr'))}); xhr.send();
  try { new WebSocket('ws://${canary.authority}/ws'); } catch (error) {}
  try { new WebSocket('wss://${canary6?.authority ?? '[::1]:9'}/wss'); } catch (error) {}
  try { new EventSource(${JSON.stringify(at('/event-source'))}); } catch (error) {}
  try { navigator.sendBeacon(${JSON.stringify(at('/beacon'))}, 'x'); } catch (error) {}
  try { navigator.serviceWorker.register('/sw.js').catch(() => {}); } catch (error) {}
  try { new Worker('/worker.js'); } catch (error) {}
  try { window.open(${JSON.stringify(at('/popup'))}); } catch (error) {}
  try {
    const peer = new RTCPeerConnection({ iceServers: [
      { urls: 'stun:127.0.0.1:${udpCanary.port}' },
      { urls: 'turn:${canary.authority}?transport=tcp', username: 'u', credential: 'p' },
    ] });
    peer.createDataChannel('probe');
    peer.createOffer().then((offer) => peer.setLocalDescription(offer)).catch(() => {});
  } catch (error) {}
</script>
</body></html>`;
}

beforeAll(async () => {
  canary = (await startCanaryListener('127.0.0.1'))!;
  canary6 = await startCanaryListener('::1');
  const udp = createSocket('udp4');
  udpCanary = { socket: udp, port: 0, datagrams: 0 };
  udp.on('message', () => (udpCanary.datagrams += 1));
  await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
  udpCanary.port = udp.address().port;
  site = await startTestHttpServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://site');
    const html = (body: string) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    switch (url.pathname) {
      case '/':
        return html(hostilePage());
      case '/plain':
        return html('<!doctype html><title>plain</title><body style="background:#c00"><img src="/ok.png"></body>');
      case '/ok.png':
        return response.writeHead(200, { 'content-type': 'image/png' }).end(ONE_PIXEL_PNG);
      case '/style.css':
        return response
          .writeHead(200, { 'content-type': 'text/css' })
          .end(`@import url("${at('/css-import.css')}");\nbody { background-image: url("${at6('/css-url.png')}"); }\n@font-face { font-family: x; src: url("${at('/font.woff2')}"); }\nbody { font-family: x; }`);
      case '/redirect':
        return response.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
      case '/frame-form.html':
        return html(`<form method="post" action="${at('/form')}"><input name="a" value="b"></form><script>document.forms[0].submit();</script>`);
      case '/frame-meta.html':
        return html(`<meta http-equiv="refresh" content="0;url=${at6('/meta-refresh')}"><p>refreshing</p>`);
      case '/sw.js':
        return response.writeHead(200, { 'content-type': 'text/javascript' }).end(`fetch(${JSON.stringify(at('/from-service-worker'))});`);
      case '/worker.js':
        return response.writeHead(200, { 'content-type': 'text/javascript' }).end(`fetch(${JSON.stringify(at('/from-worker'))}).catch(() => {});`);
      default:
        return response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  harness = await createToolTestHarness('screenshot-egress');
});

afterAll(async () => {
  await Promise.all([canary?.close(), canary6?.close(), site?.close(), harness?.close()]);
  udpCanary?.socket.close();
});

function policy(): FetchTargetPolicy {
  return { publicBaseUrl: site.origin, allowlist: '', allowPublic: true };
}

/** Every request path the refusals name (CONNECTs by authority). */
function refusedPaths(refusals: RefusedRequest[]): string[] {
  return refusals.map(({ request }) => {
    const target = request.slice(request.indexOf(' ') + 1);
    if (request.startsWith('CONNECT ')) return request;
    try {
      return new URL(target).pathname;
    } catch {
      return target;
    }
  });
}

// A browser on a busy two-core machine (the suite runs two files at once) can take a while.
describe.skipIf(!binary)('Chromium behind the egress guard (real Chromium)', { timeout: 90_000 }, () => {
  it('reaches no canary from any path a page can take, lists every refusal, and still loads the same-origin image', async () => {
    const proxy = await startGuardedForwardProxy({ checkTarget: (target) => decideBrowserEgress({ target, policy: policy() }) });
    const seenBefore = site.requests.length;
    let result;
    try {
      result = await runHeadlessChromium({
        binary: binary!,
        url: `${site.origin}/`,
        width: 1280,
        height: 800,
        egress: { proxyUrl: proxy.url, proxyAnswerHeader: PROXY_ANSWER_HEADER, proxyAnswerMarker: proxy.proxyAnswerMarker },
        timeoutMs: 30_000,
        signal: new AbortController().signal,
      });
    } finally {
      await proxy.close();
    }
    expect(result.outcome, JSON.stringify(result).slice(0, 500)).toBe('captured');

    // Nothing reached a canary: not a connection, let alone a request.
    expect({ v4: canary.requests, v6: canary6?.requests ?? [] }).toEqual({ v4: [], v6: [] });
    expect(canary.connections).toBe(0);
    expect(canary6?.connections ?? 0).toBe(0);
    expect(udpCanary.datagrams, 'STUN datagrams').toBe(0);

    // The page really tried: each path was refused by the guard (not merely never attempted).
    const refused = refusedPaths(proxy.refusals().first);
    for (const path of [
      '/img.png',
      '/img6.png',
      '/srcset.png',
      '/source6.png',
      '/redirected.png',
      '/localhost.png',
      '/decimal.png',
      '/mapped.png',
      '/latest/meta-data/',
      '/stylesheet.css',
      '/css-import.css',
      '/css-url.png',
      '/iframe.html',
      '/form',
      '/meta-refresh',
      '/fetch',
      '/fetch6',
      '/xhr',
      '/event-source',
      '/inline-style.png',
      `CONNECT ${canary.authority}`,
    ]) {
      expect(refused, path).toContain(path);
    }
    if (canary6) expect(refused).toContain(`CONNECT ${canary6.authority}`);

    // The legitimate same-origin resources came through the proxy; the service worker was never
    // registered (its script never fetched).
    const seen = site.requests.slice(seenBefore);
    expect(seen).toContain('GET /');
    expect(seen).toContain('GET /ok.png');
    expect(seen).toContain('GET /style.css');
    expect(seen).toContain('GET /redirect?to=' + encodeURIComponent(at('/redirected.png')));
    expect(seen).not.toContain('GET /sw.js');
    if (result.outcome === 'captured') {
      expect(pngDimensions(result.png)).toEqual({ width: 1280, height: 800 });
      expect(result.document).toMatchObject({ url: `${site.origin}/`, status: 200, answeredByGuard: false });
    }
  });

  it('the screenshot tool reports the refusals in its result and keeps the PNG', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const context = await harness.contextFor(run.id, { publicBaseUrl: site.origin, config: { BUILDFLEET_CHROMIUM_PATH: binary!, BUILDFLEET_SCREENSHOT_TIMEOUT_MS: LOADED_MACHINE_SCREENSHOT_MS } });
    const output = await harness.call(screenshotTool, { url: `${site.origin}/` }, context);
    expect(output).toMatchObject({ width: 1280, height: 800, bytes: expect.any(Number) });
    expect(output.refused_requests.count).toBeGreaterThanOrEqual(21);
    expect(output.refused_requests.first).toHaveLength(MAX_REPORTED_REFUSALS);
    for (const refusal of output.refused_requests.first) {
      expect(refusal).toEqual({ request: expect.stringMatching(/^(GET|POST|CONNECT) /), reason: expect.any(String) });
    }
    expect(screenshotTool.output.schema.safeParse(output).success).toBe(true);
    const stored = await readScreenshot({ engine: harness.store, runId: run.id, toolUseId: context.toolUseId });
    expect(stored && pngDimensions(stored)).toEqual({ width: 1280, height: 800 });
    expect(canary.connections + (canary6?.connections ?? 0)).toBe(0);
  });

  it('a page without forbidden requests reports none', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const context = await harness.contextFor(run.id, { publicBaseUrl: site.origin, config: { BUILDFLEET_CHROMIUM_PATH: binary!, BUILDFLEET_SCREENSHOT_TIMEOUT_MS: LOADED_MACHINE_SCREENSHOT_MS } });
    const output = await harness.call(screenshotTool, { url: `${site.origin}/plain`, width: 800, height: 600 }, context);
    expect(output).toMatchObject({ width: 800, height: 600, refused_requests: { count: 0, first: [] } });
  });

  it('leaves names to the proxy: an allowlisted origin named by a host name loads (the browser resolves nothing)', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const named = `http://localhost:${new URL(site.origin).port}`;
    const context = await harness.contextFor(run.id, {
      publicBaseUrl: site.origin,
      config: { BUILDFLEET_CHROMIUM_PATH: binary!, BUILDFLEET_FETCH_ALLOWLIST: named, BUILDFLEET_SCREENSHOT_TIMEOUT_MS: LOADED_MACHINE_SCREENSHOT_MS },
    });
    const seenBefore = site.requests.length;
    const output = await harness.call(screenshotTool, { url: `${named}/plain`, width: 800, height: 600 }, context);
    expect(output).toMatchObject({ width: 800, height: 600, refused_requests: { count: 0, first: [] } });
    expect(site.requests.slice(seenBefore)).toEqual(expect.arrayContaining(['GET /plain', 'GET /ok.png']));
  });

  it('fails with fetch_blocked when the main document redirects to a refused address (and the canary sees nothing)', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const context = await harness.contextFor(run.id, { publicBaseUrl: site.origin, config: { BUILDFLEET_CHROMIUM_PATH: binary!, BUILDFLEET_SCREENSHOT_TIMEOUT_MS: LOADED_MACHINE_SCREENSHOT_MS } });
    for (const target of [at('/top-level'), `https://${canary.authority}/top-level-tls`]) {
      const url = `${site.origin}/redirect?to=${encodeURIComponent(target)}`;
      await expect(harness.call(screenshotTool, { url }, context), target).rejects.toMatchObject({ code: 'fetch_blocked' });
    }
    expect(canary.connections).toBe(0);
    expect(await readScreenshot({ engine: harness.store, runId: run.id, toolUseId: context.toolUseId })).toBeNull();
  });
});
