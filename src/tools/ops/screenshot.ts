// screenshot: renders a URL in headless Chromium and keeps the PNG on the run (for the operator
// and later review); the model gets the size, not the pixels.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { z } from 'zod';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetchPolicyFor, checkFetchTarget } from '../http/check-fetch-target.js';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { toolDescriptions } from '../tool-definitions.js';
import { saveScreenshot } from '../../engine/effects/screenshots.js';
import { defineTool, ToolError } from '../tool-types.js';
import { findChromium } from './find-chromium.js';
import { runHeadlessChromium } from './run-headless-chromium.js';

export const SCREENSHOT_TIMEOUT_MS = 30_000;
const DEFAULT_WIDTH = 1280;
const DEFAULT_HEIGHT = 800;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from a PNG's IHDR chunk, or null when the bytes are not a PNG. */
export function pngDimensions(png: Buffer): { width: number; height: number } | null {
  if (png.length < 24 || !png.subarray(0, 8).equals(PNG_SIGNATURE) || png.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

export const screenshotTool = defineTool({
  name: 'screenshot',
  description: toolDescriptions.screenshot,
  inputSchema: toolInputSchemas.screenshot,
  output: {
    schema: z.strictObject({ bytes: z.int().min(1), width: z.int().min(1), height: z.int().min(1) }),
    mode: 'fail_closed',
  },
  writes: false,
  idempotent: true,
  async execute(input, context) {
    const target = checkFetchTarget({ url: input.url, policy: fetchPolicyFor(context) });
    const { binary, tried } = await findChromium({ configuredPath: context.config.BUILDFLEET_CHROMIUM_PATH });
    if (!binary) {
      throw new ToolError(
        'chromium_unavailable',
        `Screenshots are not available on this worker: no Chromium found at ${tried.join(' or ')}. Check the page with fetch_url_live instead.`,
      );
    }
    const width = input.width ?? DEFAULT_WIDTH;
    const height = input.height ?? DEFAULT_HEIGHT;
    const workDirectory = await mkdtemp(join(tmpdir(), 'buildfleet-screenshot-'));
    try {
      const pngPath = join(workDirectory, 'screenshot.png');
      const result = await runHeadlessChromium({
        binary,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          `--user-data-dir=${join(workDirectory, 'profile')}`,
          `--screenshot=${pngPath}`,
          `--window-size=${width},${height}`,
          target.href,
        ],
        timeoutMs: SCREENSHOT_TIMEOUT_MS,
        signal: context.signal,
      });
      if (result.outcome === 'aborted') throw context.signal.reason ?? new Error('screenshot aborted');
      if (result.outcome === 'timed_out') {
        throw new ToolError('screenshot_timeout', `Chromium did not finish the screenshot of ${target.href} within ${SCREENSHOT_TIMEOUT_MS / 1000} s.`);
      }
      const png = await readFile(pngPath).catch(() => null);
      const dimensions = png ? pngDimensions(png) : null;
      if (result.exitCode !== 0 || !png || !dimensions) {
        const detail = result.stderr.trim().split('\n').slice(-3).join(' | ');
        throw new ToolError(
          'screenshot_failed',
          `Chromium could not screenshot ${target.href} (exit code ${String(result.exitCode)}${png ? '' : ', no PNG written'})${detail ? `: ${detail}` : ''}.`,
        );
      }
      await saveScreenshot({ engine: context.store, runId: context.runId, toolUseId: context.toolUseId, png });
      return { bytes: png.length, width: dimensions.width, height: dimensions.height };
    } finally {
      await rm(workDirectory, { recursive: true, force: true });
    }
  },
});
