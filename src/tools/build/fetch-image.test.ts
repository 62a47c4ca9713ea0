import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { startTestHttpServer, type TestHttpServer } from '../testing/start-test-http-server.js';
import { ONE_PIXEL_PNG } from '../testing/test-images.js';
import { fetchImageTool } from './fetch-image.js';

let harness: ToolTestHarness;
let images: TestHttpServer;
let blocked: TestHttpServer;

beforeAll(async () => {
  harness = await createToolTestHarness('fetchimage');
  blocked = await startTestHttpServer((_request, response) => response.writeHead(200, { 'content-type': 'image/png' }).end(ONE_PIXEL_PNG));
  images = await startTestHttpServer((request, response) => {
    switch (request.url) {
      case '/logo.png':
        response.writeHead(200, { 'content-type': 'image/png' }).end(ONE_PIXEL_PNG);
        break;
      case '/moved':
        response.writeHead(302, { location: '/logo.png' }).end();
        break;
      case '/page.html':
        response.writeHead(200, { 'content-type': 'text/html' }).end('<p>not an image</p>');
        break;
      case '/huge.png':
        response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(3 * 1024 * 1024));
        break;
      case '/not-a-png.png':
        response.writeHead(200, { 'content-type': 'image/png' }).end('<html>maintenance</html>');
        break;
      case '/logo.svg':
        response.writeHead(200, { 'content-type': 'image/svg+xml' }).end('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>\n');
        break;
      case '/broken.svg':
        response.writeHead(200, { 'content-type': 'image/svg+xml' }).end('<svg xmlns="http://www.w3.org/2000/svg"><rect width="4"');
        break;
      case '/untyped.png':
        response.end(ONE_PIXEL_PNG);
        break;
      case '/big.png':
        // 450 KB fits the fetch cap, but as base64 it exceeds one 512 KB workspace file.
        response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.concat([ONE_PIXEL_PNG, Buffer.alloc(450 * 1024)]));
        break;
      default:
        response.writeHead(404).end();
    }
  });
});
afterAll(async () => {
  await images.close();
  await blocked.close();
  await harness.close();
});

async function context(runId: string) {
  return harness.contextFor(runId, { publicBaseUrl: 'http://127.0.0.1:9', config: { BUILDFLEET_FETCH_ALLOWLIST: images.origin } });
}

describe('fetch_image', () => {
  it('stores the image as a base64 data URL, following redirects', async () => {
    const run = await harness.newRun({ phase: 'building' });
    const output = await harness.call(fetchImageTool, { url: `${images.origin}/moved`, path: 'images/logo.png' }, await context(run.id));
    expect(output).toEqual({ path: 'images/logo.png', content_type: 'image/png', bytes: ONE_PIXEL_PNG.length });
    expect(await harness.store.readFile(run.id, 'images/logo.png')).toBe(`data:image/png;base64,${ONE_PIXEL_PNG.toString('base64')}`);
  });

  it.each([
    ['/missing.png', 'logo.png', 'fetch_http_error'],
    ['/big.png', 'logo.png', 'file_too_large'],
    ['/logo.png', '../logo.png', 'path_invalid'],
  ])('refuses %s saved as %s with %s', async (urlPath, path, code) => {
    const run = await harness.newRun({ phase: 'building' });
    await expect(harness.call(fetchImageTool, { url: `${images.origin}${urlPath}`, path }, await context(run.id))).rejects.toMatchObject({ code });
    expect(await harness.store.listFiles(run.id)).toEqual([]);
  });

  it.each([
    ['/page.html', 'unexpected_content_type:text/html'],
    ['/huge.png', 'tool_output_too_large'],
    ['/not-a-png.png', 'invalid_image'],
    ['/broken.svg', 'invalid_svg'],
    ['/untyped.png', 'missing_content_type'],
  ])('writes nothing for %s: its upstream response is invalid (%s)', async (urlPath, reason) => {
    const run = await harness.newRun({ phase: 'building' });
    await expect(harness.call(fetchImageTool, { url: `${images.origin}${urlPath}`, path: 'logo.png' }, await context(run.id))).rejects.toMatchObject({
      code: 'ToolOutputInvalid',
      reason,
    });
    expect(await harness.store.listFiles(run.id)).toEqual([]);
  });

  it('stores a well-formed SVG', async () => {
    const run = await harness.newRun({ phase: 'building' });
    const output = await harness.call(fetchImageTool, { url: `${images.origin}/logo.svg`, path: 'logo.svg' }, await context(run.id));
    expect(output).toMatchObject({ path: 'logo.svg', content_type: 'image/svg+xml' });
  });

  it('refuses hosts outside the allowlist without contacting them', async () => {
    const run = await harness.newRun({ phase: 'building' });
    await expect(
      harness.call(fetchImageTool, { url: `${blocked.origin}/x.png`, path: 'x.png' }, await context(run.id)),
    ).rejects.toMatchObject({ code: 'fetch_blocked' });
    await expect(harness.call(fetchImageTool, { url: 'file:///etc/passwd', path: 'x.png' }, await context(run.id))).rejects.toMatchObject({
      code: 'url_invalid',
    });
    expect(blocked.requests).toEqual([]);
  });
});
