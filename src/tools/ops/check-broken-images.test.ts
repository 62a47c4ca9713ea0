import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { startTestHttpServer, type TestHttpServer } from '../testing/start-test-http-server.js';
import { ONE_PIXEL_PNG } from '../testing/test-images.js';
import { validateToolOutput } from '../output/validate-tool-output.js';
import { DEFAULT_MAX_OUTPUT_CHARACTERS } from '../../domain/tool-output-contract.js';
import { checkBrokenImagesTool } from './check-broken-images.js';
import { MAX_LISTED_PROBLEMS, MAX_PROBLEM_FIELD_CHARACTERS } from './check-broken-images-list.js';

let harness: ToolTestHarness;
let images: TestHttpServer;

beforeAll(async () => {
  harness = await createToolTestHarness('brokenimages');
  images = await startTestHttpServer((request, response) => {
    switch (request.url) {
      case '/ok.png':
        response.writeHead(200, { 'content-type': 'image/png' }).end(request.method === 'HEAD' ? undefined : ONE_PIXEL_PNG);
        break;
      case '/head-refused.png':
        if (request.method === 'HEAD') response.writeHead(405).end();
        else response.writeHead(200, { 'content-type': 'image/png' }).end(ONE_PIXEL_PNG);
        break;
      case '/moved.png':
        response.writeHead(301, { location: '/ok.png' }).end();
        break;
      case '/page':
        response.writeHead(200, { 'content-type': 'text/html' }).end('<p>hi</p>');
        break;
      default:
        response.writeHead(404).end();
    }
  });
});
afterAll(async () => {
  await images.close();
  await harness.close();
});

async function deploySite(runId: string, files: Record<string, string>): Promise<string> {
  for (const [path, content] of Object.entries(files)) await harness.writeFile(runId, path, content);
  await harness.deploy(runId, 'dep_site');
  return 'dep_site';
}

describe('check_broken_images', () => {
  it('finds broken local and remote images and passes good ones', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const remote = images.origin;
    const deployId = await deploySite(run.id, {
      'index.html': `<!doctype html><html><head>
        <link rel="icon" href="favicon.ico"><link rel="stylesheet" href="css/site.css">
        <style>.hero { background: url('images/bg.png'); }</style></head><body>
        <img src="images/logo.png"><img src="missing.png"><img src="data:image/png;base64,AAAA">
        <img src="/images/logo.png"><img src="../escape.png"><img src="javascript:alert(1)"><img src="">
        <picture><source srcset="images/logo.png 1x, images/gone.png 2x"><img src="images/logo.png"></picture>
        <img src="images/my%5Fphoto.png">
        <img src="${remote}/ok.png"><img src="${remote}/head-refused.png"><img src="${remote}/moved.png">
        <img src="${remote}/page"><img src="${remote}/missing.png"><img src="https://images.elsewhere.example/a.png">
      </body></html>`,
      'pages/about.html': `<img src="../images/logo.png"><img src="logo.png"><img src="${remote}/ok.png">`,
      'css/site.css': '.a { background: url(../images/bg.png) } .b { background: url("missing-bg.png") } @font-face { src: url(f.woff2) }',
      'images/logo.png': 'data:image/png;base64,AAAA',
      'images/bg.png': 'data:image/png;base64,AAAA',
      'images/my_photo.png': 'data:image/png;base64,AAAA',
    });
    const context = await harness.contextFor(run.id, { publicBaseUrl: 'http://127.0.0.1:9', config: { BUILDFLEET_FETCH_ALLOWLIST: remote } });
    const output = await harness.call(checkBrokenImagesTool, { deploy_id: deployId }, context);

    expect(output.deploy_id).toBe(deployId);
    expect(output.broken).toEqual([
      { page: 'css/site.css', src: 'missing-bg.png', reason: 'css/missing-bg.png is not a file of this deployment' },
      { page: 'index.html', src: 'favicon.ico', reason: 'favicon.ico is not a file of this deployment' },
      { page: 'index.html', src: 'missing.png', reason: 'missing.png is not a file of this deployment' },
      {
        page: 'index.html',
        src: '/images/logo.png',
        reason: 'a root-relative path ("/...") points outside the site; use a path relative to the page',
      },
      { page: 'index.html', src: '../escape.png', reason: 'the path climbs above the site root with "../"' },
      { page: 'index.html', src: 'javascript:alert(1)', reason: 'browsers cannot load images over javascript:' },
      { page: 'index.html', src: '', reason: 'the reference is empty' },
      { page: 'index.html', src: 'images/gone.png', reason: 'images/gone.png is not a file of this deployment' },
      { page: 'index.html', src: `${remote}/page`, reason: 'not an image (unexpected_content_type:text/html)' },
      { page: 'index.html', src: `${remote}/missing.png`, reason: 'HTTP 404' },
      { page: 'pages/about.html', src: 'logo.png', reason: 'pages/logo.png is not a file of this deployment' },
    ]);
    expect(output.unchecked).toEqual([
      {
        page: 'index.html',
        src: 'https://images.elsewhere.example/a.png',
        reason: expect.stringContaining('not allowed'),
      },
    ]);
    // 2 css + 16 index (17 distinct minus the unchecked one) + 3 about.
    expect(output.checked).toBe(2 + 16 + 3);
    // Each remote URL is requested once although two pages use /ok.png (the second HEAD /ok.png
    // is /moved.png's redirect); HEAD first, GET to confirm whatever HEAD calls broken.
    expect([...images.requests].sort()).toEqual([
      'GET /head-refused.png',
      'GET /missing.png',
      'GET /page',
      'HEAD /head-refused.png',
      'HEAD /missing.png',
      'HEAD /moved.png',
      'HEAD /ok.png',
      'HEAD /ok.png',
      'HEAD /page',
    ]);
  });

  it('reports a clean deployment as clean', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const deployId = await deploySite(run.id, { 'index.html': '<img src="a.png">', 'a.png': 'data:image/png;base64,AAAA' });
    expect(await harness.call(checkBrokenImagesTool, { deploy_id: deployId }, await harness.contextFor(run.id))).toEqual({
      deploy_id: deployId,
      checked: 1,
      broken: [],
      unchecked: [],
    });
  });

  it('bounds its lists, whatever the pages hold, so its output stays valid and says what it cut', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    // One src of 200,001 characters (the #16 review's case: alone it made the output too large),
    // 1,200 more broken local images and 60 remote ones beyond the 50 it checks.
    const huge = `${'x'.repeat(200_000)}é`;
    const many = Array.from({ length: 1_200 }, (_, index) => `<img src="gone-${index}.png">`).join('');
    const remote = Array.from({ length: 110 }, (_, index) => `<img src="https://unreachable-${index}.invalid/a.png">`).join('');
    const deployId = await deploySite(run.id, { 'index.html': `<img src="${huge}">${many}${remote}` });
    const context = await harness.contextFor(run.id);
    const output = await harness.call(checkBrokenImagesTool, { deploy_id: deployId }, context);

    expect(output.checked).toBe(1 + 1_200);
    expect(output.broken).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(output.broken_omitted).toBe(1 + 1_200 - MAX_LISTED_PROBLEMS);
    expect(output.broken[0].src).toBe(`${'x'.repeat(MAX_PROBLEM_FIELD_CHARACTERS)}…[+${huge.length - MAX_PROBLEM_FIELD_CHARACTERS} characters]`);
    expect(output.broken[0].reason).toMatch(/^x{300}…\[\+\d+ characters\]$/);
    expect(output.broken[1]).toEqual({ page: 'index.html', src: 'gone-0.png', reason: 'gone-0.png is not a file of this deployment' });
    expect(output.unchecked).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(output.unchecked_omitted).toBe(110 - MAX_LISTED_PROBLEMS);
    // The contract accepts it: no invalid output for the kill switch to count.
    const validated = validateToolOutput({ output, contract: checkBrokenImagesTool.output, context: { runId: run.id, toolUseId: context.toolUseId, input: { deploy_id: deployId }, publicBaseUrl: context.publicBaseUrl } });
    expect(JSON.stringify(validated).length).toBeLessThan(DEFAULT_MAX_OUTPUT_CHARACTERS);
  });

  it('refuses an unknown deployment', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    await expect(harness.call(checkBrokenImagesTool, { deploy_id: 'dep_missing' }, await harness.contextFor(run.id))).rejects.toMatchObject({
      code: 'deploy_not_found',
    });
  });
});
