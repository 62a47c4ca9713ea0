import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { ONE_PIXEL_PNG } from '../testing/test-images.js';
import { readScreenshot } from '../../engine/effects/screenshots.js';
import { DEFAULT_CHROMIUM_PATHS } from './find-chromium.js';
import { runHeadlessChromium } from './run-headless-chromium.js';
import { pngDimensions, screenshotTool } from './screenshot.js';

let harness: ToolTestHarness;
let directory: string;

/** Writes an executable stand-in for Chromium: a node script running `body` with `args` set. */
async function fakeChromium(name: string, body: string): Promise<string> {
  const path = join(directory, name);
  await writeFile(
    path,
    `#!${process.execPath}\nconst fs = require('node:fs');\nconst args = process.argv.slice(2);\nfs.writeFileSync(${JSON.stringify(`${path}.args.json`)}, JSON.stringify(args));\n${body}\n`,
  );
  await chmod(path, 0o755);
  return path;
}

const WRITE_PNG = `
const target = args.find((arg) => arg.startsWith('--screenshot=')).slice('--screenshot='.length);
const [width, height] = args.find((arg) => arg.startsWith('--window-size=')).slice('--window-size='.length).split(',').map(Number);
const png = Buffer.from(${JSON.stringify(ONE_PIXEL_PNG.toString('base64'))}, 'base64');
png.writeUInt32BE(width, 16);
png.writeUInt32BE(height, 20);
fs.writeFileSync(target, png);
`;

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
  it('reports chromium_unavailable when no browser exists', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const missing = join(directory, 'no-such-chromium');
    await expect(
      harness.call(screenshotTool, { url: 'http://127.0.0.1:8080/sites/x/' }, await context(run.id, missing)),
    ).rejects.toMatchObject({ code: 'chromium_unavailable', message: expect.stringContaining(missing) });
  });

  it('names the default locations when nothing is configured (none installed here)', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const pending = harness.call(screenshotTool, { url: 'http://127.0.0.1:8080/' }, await context(run.id, undefined));
    await expect(pending).rejects.toMatchObject({
      code: 'chromium_unavailable',
      message: expect.stringContaining(DEFAULT_CHROMIUM_PATHS.join(' or ')),
    });
  });

  it('runs Chromium headless and stores the PNG under the tool call id', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const binary = await fakeChromium('chromium-ok', WRITE_PNG);
    const toolContext = await context(run.id, binary);
    const output = await harness.call(screenshotTool, { url: 'http://127.0.0.1:8080/sites/x/', width: 800, height: 600 }, toolContext);
    expect(output).toEqual({ bytes: ONE_PIXEL_PNG.length, width: 800, height: 600 });
    const stored = await readScreenshot({ engine: harness.store, runId: run.id, toolUseId: toolContext.toolUseId });
    expect(stored && pngDimensions(stored)).toEqual({ width: 800, height: 600 });
    const args = JSON.parse(await readFile(`${binary}.args.json`, 'utf8')) as string[];
    expect(args.slice(0, 8)).toEqual([
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ]);
    expect(args).toContain('--window-size=800,600');
    expect(args.at(-1)).toBe('http://127.0.0.1:8080/sites/x/');
    expect(args.find((arg) => arg.startsWith('--user-data-dir='))).toMatch(/buildfleet-screenshot-/);
  });

  it('defaults to a 1280x800 viewport', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const binary = await fakeChromium('chromium-default', WRITE_PNG);
    const output = await harness.call(screenshotTool, { url: 'http://127.0.0.1:8080/' }, await context(run.id, binary));
    expect(output).toMatchObject({ width: 1280, height: 800 });
  });

  it('reports screenshot_failed when Chromium fails or writes no PNG', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const crashing = await fakeChromium('chromium-crash', `console.error('ERROR: net::ERR_CONNECTION_REFUSED'); process.exit(1);`);
    await expect(harness.call(screenshotTool, { url: 'http://127.0.0.1:8080/' }, await context(run.id, crashing))).rejects.toMatchObject({
      code: 'screenshot_failed',
      message: expect.stringContaining('ERR_CONNECTION_REFUSED'),
    });
    const silent = await fakeChromium('chromium-silent', '');
    await expect(harness.call(screenshotTool, { url: 'http://127.0.0.1:8080/' }, await context(run.id, silent))).rejects.toMatchObject({
      code: 'screenshot_failed',
      message: expect.stringContaining('no PNG written'),
    });
  });

  it('refuses URLs the fetch policy does not allow, before starting Chromium', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const binary = await fakeChromium('chromium-unused', WRITE_PNG);
    await expect(harness.call(screenshotTool, { url: 'http://10.0.0.1/' }, await context(run.id, binary))).rejects.toMatchObject({
      code: 'fetch_blocked',
    });
    await expect(readFile(`${binary}.args.json`)).rejects.toThrow();
  });
});

describe('runHeadlessChromium', () => {
  it('kills the whole process group on timeout', async () => {
    const pidFile = join(directory, 'helper.pid');
    const binary = await fakeChromium(
      'chromium-hang',
      `const helper = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
fs.writeFileSync(${JSON.stringify(pidFile)}, String(helper.pid));
setInterval(() => {}, 1000);`,
    );
    const result = await runHeadlessChromium({ binary, args: [], timeoutMs: 500, signal: new AbortController().signal });
    expect(result.outcome).toBe('timed_out');
    const helperPid = Number(await readFile(pidFile, 'utf8'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Gone, or a zombie waiting for a reaper that is not ours: either way no longer running.
    const state = await readFile(`/proc/${helperPid}/stat`, 'utf8').then(
      (stat) => stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3),
      () => 'gone',
    );
    expect(['gone', 'Z', 'X']).toContain(state);
  });

  it('stops when the tool call is cancelled', async () => {
    const binary = await fakeChromium('chromium-hang-2', 'setInterval(() => {}, 1000);');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const result = await runHeadlessChromium({ binary, args: [], timeoutMs: 30_000, signal: controller.signal });
    expect(result.outcome).toBe('aborted');
  });
});
