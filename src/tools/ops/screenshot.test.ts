// The screenshot tool's paths that need no real browser: a missing Chromium, a refused target, a
// binary that is not a browser. The egress guard with a real Chromium is tested in
// test/integration/screenshot-egress.test.ts, and the browser's lifecycle (timeout, cancellation,
// flags, environment) in run-headless-chromium.test.ts; both run whether or not Chromium is
// installed here, skipping with a printed reason when it is not.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { ONE_PIXEL_PNG } from '../testing/test-images.js';
import { findChromium } from './find-chromium.js';
import { pngDimensions, screenshotTool } from './screenshot.js';

let harness: ToolTestHarness;
let directory: string;

/** An executable that is not a browser: records that it ran, then runs `body`. */
async function fakeChromium(name: string, body: string): Promise<string> {
  const path = join(directory, name);
  await writeFile(
    path,
    `#!${process.execPath}\nrequire('node:fs').writeFileSync(${JSON.stringify(`${path}.ran`)}, JSON.stringify(process.argv.slice(2)));\n${body}\n`,
  );
  await chmod(path, 0o755);
  return path;
}

beforeAll(async () => {
  harness = await createToolTestHarness('screenshot');
  directory = await mkdtemp(join(tmpdir(), 'buildfleet-fake-chromium-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
  await harness.close();
});

async function context(runId: string, chromiumPath: string | undefined) {
  return harness.contextFor(runId, {
    publicBaseUrl: 'http://127.0.0.1:8080',
    config: { BUILDFLEET_CHROMIUM_PATH: chromiumPath },
  });
}

describe('screenshot', () => {
  it('reports chromium_unavailable when the configured browser does not exist', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const missing = join(directory, 'no-such-chromium');
    await expect(
      harness.call(screenshotTool, { url: 'http://127.0.0.1:8080/sites/x/' }, await context(run.id, missing)),
    ).rejects.toMatchObject({ code: 'chromium_unavailable', message: expect.stringContaining(missing) });
  });

  it('looks in the default locations in order when nothing is configured, and only at the configured path when one is', async () => {
    const locations = await mkdtemp(join(directory, 'locations-'));
    const missing = join(locations, 'missing');
    const notExecutable = join(locations, 'not-executable');
    await writeFile(notExecutable, '', { mode: 0o644 });
    const [first, second] = [join(locations, 'first'), join(locations, 'second')];
    for (const path of [first, second]) await writeFile(path, '#!/bin/sh\n', { mode: 0o755 });
    const defaultPaths = [missing, notExecutable, first, second];

    expect(await findChromium({ configuredPath: undefined, defaultPaths })).toEqual({ binary: first, tried: defaultPaths });
    expect(await findChromium({ configuredPath: undefined, defaultPaths: [missing, notExecutable] })).toEqual({ binary: null, tried: [missing, notExecutable] });
    // A configured path is the only one tried, found or not.
    expect(await findChromium({ configuredPath: second, defaultPaths })).toEqual({ binary: second, tried: [second] });
    expect(await findChromium({ configuredPath: missing, defaultPaths })).toEqual({ binary: null, tried: [missing] });
    // Without locations of its own, the finder (and so the tool's message) names Debian's and Ubuntu's.
    expect((await findChromium({ configuredPath: undefined })).tried).toEqual(['/usr/bin/chromium', '/usr/bin/chromium-browser']);
  });

  it('refuses URLs the fetch policy does not allow, before starting Chromium', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const binary = await fakeChromium('chromium-unused', '');
    for (const url of ['http://10.0.0.1/', 'http://127.0.0.1:6379/', 'http://localhost:8080/', 'http://[::1]:8080/', 'http://169.254.169.254/']) {
      await expect(harness.call(screenshotTool, { url }, await context(run.id, binary)), url).rejects.toMatchObject({ code: 'fetch_blocked' });
    }
    await expect(readFile(`${binary}.ran`)).rejects.toThrow();
  });

  it('reports screenshot_failed when the binary is not a browser that starts', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const crashing = await fakeChromium('chromium-crash', `console.error('ERROR: this is not a browser'); process.exit(1);`);
    await expect(harness.call(screenshotTool, { url: 'http://127.0.0.1:8080/' }, await context(run.id, crashing))).rejects.toMatchObject({
      code: 'screenshot_failed',
      message: expect.stringContaining('ERROR: this is not a browser'),
    });
    // It was started the way a real one would be: behind the proxy, loopback not bypassed.
    const args = JSON.parse(await readFile(`${crashing}.ran`, 'utf8')) as string[];
    expect(args).toContain('--proxy-bypass-list=<-loopback>');
    expect(args.find((arg) => arg.startsWith('--proxy-server='))).toMatch(/^--proxy-server=http:\/\/127\.0\.0\.1:\d+$/);
  });
});

describe('pngDimensions', () => {
  it('reads width and height from the IHDR chunk, and refuses what is not a PNG', () => {
    const png = Buffer.from(ONE_PIXEL_PNG);
    png.writeUInt32BE(640, 16);
    png.writeUInt32BE(480, 20);
    expect(pngDimensions(png)).toEqual({ width: 640, height: 480 });
    expect(pngDimensions(Buffer.from('GIF89a, not a png at all....'))).toBeNull();
  });
});
