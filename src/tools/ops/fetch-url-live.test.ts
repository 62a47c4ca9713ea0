import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { startTestHttpServer, type TestHttpServer } from '../testing/start-test-http-server.js';
import { ONE_PIXEL_PNG } from '../testing/test-images.js';
import { fetchUrlLiveTool } from './fetch-url-live.js';

let harness: ToolTestHarness;
let site: TestHttpServer;

beforeAll(async () => {
  harness = await createToolTestHarness('fetchlive');
  site = await startTestHttpServer((request, response) => {
    switch (request.url) {
      case '/maintenance':
        response
          .writeHead(503, { 'content-type': 'text/html; charset=utf-8', 'retry-after': '60' })
          .end('<html><head><title>  Down for\n maintenance &amp; upgrades </title></head><body>Back soon</body></html>');
        break;
      case '/old':
        response.writeHead(301, { location: '/sites/run/' }).end();
        break;
      case '/sites/run/':
        response.writeHead(200, { 'content-type': 'text/html' }).end(`<title>Bakery</title>${'x'.repeat(10_000)}`);
        break;
      case '/logo.png':
        response.writeHead(200, { 'content-type': 'image/png' }).end(ONE_PIXEL_PNG);
        break;
      case '/sites/run/data.json':
      case '/api/data.json':
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
        break;
      case '/api/truncated.json':
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"items":[1,2');
        break;
      case '/api/wrapped.json':
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"error":{"code":"quota"}}');
        break;
      case '/loop':
        response.writeHead(302, { location: '/loop' }).end();
        break;
      case '/slow':
        setTimeout(() => response.end('late'), 12_000).unref();
        break;
      default:
        response.writeHead(404).end();
    }
  });
});
afterAll(async () => {
  await site.close();
  await harness.close();
});

async function context(runId: string) {
  return harness.contextFor(runId, { publicBaseUrl: site.origin });
}

describe('fetch_url_live', () => {
  it('reports a maintenance page as an observation, not a failure', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const output = await harness.call(fetchUrlLiveTool, { url: `${site.origin}/maintenance` }, await context(run.id));
    expect(output).toMatchObject({
      url: `${site.origin}/maintenance`,
      final_url: `${site.origin}/maintenance`,
      status: 503,
      content_type: 'text/html',
      title: 'Down for maintenance & upgrades',
      truncated: false,
    });
    expect(output.body_excerpt).toContain('Back soon');
  });

  it('follows redirects and caps the excerpt at 4000 characters', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const output = await harness.call(fetchUrlLiveTool, { url: `${site.origin}/old` }, await context(run.id));
    expect(output).toMatchObject({ final_url: `${site.origin}/sites/run/`, status: 200, title: 'Bakery', bytes: 10_021 });
    expect(output.body_excerpt).toHaveLength(4000);
  });

  it('refuses content it does not expect: binary, or anything but HTML from the fleet\'s own sites', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    await expect(harness.call(fetchUrlLiveTool, { url: `${site.origin}/logo.png` }, await context(run.id))).rejects.toMatchObject({
      code: 'ToolOutputInvalid',
      reason: 'unexpected_content_type:image/png',
    });
    await expect(harness.call(fetchUrlLiveTool, { url: `${site.origin}/sites/run/data.json` }, await context(run.id))).rejects.toMatchObject({
      code: 'ToolOutputInvalid',
      reason: 'unexpected_content_type:application/json',
    });
  });

  it('parses JSON strictly and reads text', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const output = await harness.call(fetchUrlLiveTool, { url: `${site.origin}/api/data.json` }, await context(run.id));
    expect(output).toMatchObject({ status: 200, content_type: 'application/json', title: null, body_excerpt: '{"ok":true}' });
    await expect(harness.call(fetchUrlLiveTool, { url: `${site.origin}/api/truncated.json` }, await context(run.id))).rejects.toMatchObject({
      reason: 'invalid_json',
    });
    await expect(harness.call(fetchUrlLiveTool, { url: `${site.origin}/api/wrapped.json` }, await context(run.id))).rejects.toMatchObject({
      reason: 'error_in_success_wrapper',
    });
    const empty = await harness.call(fetchUrlLiveTool, { url: `${site.origin}/nothing` }, await context(run.id));
    expect(empty).toMatchObject({ status: 404, bytes: 0, body_excerpt: '' });
  });

  it('reports redirect loops, blocked hosts and bad URLs', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const loop = harness.call(fetchUrlLiveTool, { url: `${site.origin}/loop` }, await context(run.id));
    await expect(loop).rejects.toMatchObject({ code: 'fetch_too_many_redirects' });
    const blocked = harness.call(fetchUrlLiveTool, { url: 'http://169.254.169.254/latest/' }, await context(run.id));
    await expect(blocked).rejects.toMatchObject({ code: 'fetch_blocked' });
    const invalid = harness.call(fetchUrlLiveTool, { url: 'gopher://x' }, await context(run.id));
    await expect(invalid).rejects.toMatchObject({ code: 'url_invalid' });
  });

  it('reports a refused connection as fetch_failed', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const closed = await startTestHttpServer(() => undefined);
    await closed.close();
    const context = await harness.contextFor(run.id, { publicBaseUrl: site.origin, config: { BUILDFLEET_FETCH_ALLOWLIST: closed.origin } });
    await expect(harness.call(fetchUrlLiveTool, { url: `${closed.origin}/` }, context)).rejects.toMatchObject({
      code: 'fetch_failed',
      message: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it('times out after 10 seconds', { timeout: 20_000 }, async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const started = Date.now();
    await expect(harness.call(fetchUrlLiveTool, { url: `${site.origin}/slow` }, await context(run.id))).rejects.toMatchObject({
      code: 'fetch_timeout',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_900);
  });
});
