// screenshot: renders a URL in headless Chromium and keeps the PNG on the run (for the operator
// and later review); the model gets the size, not the pixels, and the requests the egress guard
// refused.
//
// The page is model-written HTML, CSS and JS, so the browser is treated as hostile: it runs
// behind a guarded forward proxy started for this call (src/safety/guarded-forward-proxy.ts) that
// applies the fetch tools' policy to every request it makes (browser-egress-policy.ts), and the
// flags in run-headless-chromium.ts leave it no other way out. A page whose subresources were
// refused still gets its screenshot (the refusals are listed); a page whose main document was
// refused does not (the screenshot would show the guard's refusal, not the site).
import { z } from 'zod';
import { assertNever } from '../../domain/assert-never.js';
import { quoteUntrusted } from '../../domain/quote-untrusted.js';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { saveScreenshot } from '../../engine/index.js';
import { PROXY_ANSWER_HEADER, startGuardedForwardProxy, type RefusedRequest } from '../../safety/guarded-forward-proxy.js';
import { decideBrowserEgress } from '../http/browser-egress-policy.js';
import { checkFetchTarget, fetchPolicyFor } from '../http/check-fetch-target.js';
import { toolDescriptions } from '../../domain/tool-descriptions.js';
import { defineTool, ToolError } from '../tool-types.js';
import { findChromium } from './find-chromium.js';
import { runHeadlessChromium, type MainDocument } from './run-headless-chromium.js';

/** How many refused requests the result lists (all are counted). */
export const MAX_REPORTED_REFUSALS = 10;
const DEFAULT_WIDTH = 1280;
const DEFAULT_HEIGHT = 800;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from a PNG's IHDR chunk, or null when the bytes are not a PNG. */
export function pngDimensions(png: Buffer): { width: number; height: number } | null {
  if (png.length < 24 || !png.subarray(0, 8).equals(PNG_SIGNATURE) || png.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

// The proxy caps what it records at 300 characters (plus an ellipsis); the schema holds it to that.
const refusedRequestSchema = z.strictObject({ request: z.string().max(301), reason: z.string().max(301) });

function refusalSummary(refusals: { count: number; first: RefusedRequest[] }): { count: number; first: RefusedRequest[] } {
  return { count: refusals.count, first: refusals.first.slice(0, MAX_REPORTED_REFUSALS) };
}

/** The tool error for a main document the screenshot cannot show (refused, unreachable, failed). */
function documentError(document: MainDocument, refusedCount: number): ToolError {
  const url = quoteUntrusted(document.url);
  if (document.answeredByGuard && document.status === 403) {
    return new ToolError(
      'fetch_blocked',
      `The page's main document ${url} was refused by the egress guard: the page redirected or navigated to an address the fetch policy does not allow.`,
    );
  }
  if (document.answeredByGuard) {
    return new ToolError(
      'screenshot_failed',
      `Chromium could not reach the page's main document ${url} (HTTP ${String(document.status)} from the egress guard).`,
    );
  }
  // Chromium reports a refused CONNECT (https, the proxy's 403) only as a failed tunnel.
  if (document.failure?.includes('ERR_TUNNEL_CONNECTION_FAILED') && refusedCount > 0) {
    return new ToolError('fetch_blocked', `The page's main document ${url} could not be opened: the egress guard refused its connection.`);
  }
  return new ToolError('screenshot_failed', `Chromium could not load ${url}: ${quoteUntrusted(document.failure ?? 'unknown error')}.`);
}

export const screenshotTool = defineTool({
  name: 'screenshot',
  description: toolDescriptions.screenshot,
  inputSchema: toolInputSchemas.screenshot,
  output: {
    schema: z.strictObject({
      bytes: z.int().min(1),
      width: z.int().min(1),
      height: z.int().min(1),
      /** Requests of the page the egress guard refused: how many, and the first few. */
      refused_requests: z.strictObject({
        count: z.int().min(0),
        first: z.array(refusedRequestSchema).max(MAX_REPORTED_REFUSALS),
      }),
    }),
    mode: 'fail_closed',
  },
  writes: false,
  idempotent: true,
  async execute(input, context) {
    const policy = fetchPolicyFor(context);
    // The browser connects only through the guarded proxy, which checks every address it
    // connects to: the target is judged like a fetch tool's (address-guarded).
    const target = checkFetchTarget({ url: input.url, policy, addressGuarded: true });
    const { binary, tried } = await findChromium({ configuredPath: context.config.BUILDFLEET_CHROMIUM_PATH });
    if (!binary) {
      throw new ToolError(
        'chromium_unavailable',
        `Screenshots are not available on this worker: no Chromium found at ${tried.join(' or ')}. Check the page with fetch_url_live instead.`,
      );
    }
    const width = input.width ?? DEFAULT_WIDTH;
    const height = input.height ?? DEFAULT_HEIGHT;
    const proxy = await startGuardedForwardProxy({ checkTarget: (request) => decideBrowserEgress({ target: request, policy }) });
    try {
      const result = await runHeadlessChromium({
        binary,
        url: target.href,
        width,
        height,
        egress: { proxyUrl: proxy.url, proxyAnswerHeader: PROXY_ANSWER_HEADER, proxyAnswerMarker: proxy.proxyAnswerMarker },
        timeoutMs: context.config.BUILDFLEET_SCREENSHOT_TIMEOUT_MS,
        signal: context.signal,
      });
      const refused = refusalSummary(proxy.refusals());
      if (refused.count > 0) {
        context.logger.info({ tool: 'screenshot', refused: refused.count, first: refused.first }, 'egress guard refused requests of the page');
      }
      switch (result.outcome) {
        case 'aborted':
          throw context.signal.reason ?? new Error('screenshot aborted');
        case 'timed_out':
          throw new ToolError(
            'screenshot_timeout',
            `Chromium did not finish the screenshot of ${quoteUntrusted(target.href)} within ${context.config.BUILDFLEET_SCREENSHOT_TIMEOUT_MS / 1000} s.`,
          );
        case 'failed':
          throw new ToolError('screenshot_failed', `Chromium could not screenshot ${quoteUntrusted(target.href)}: ${quoteUntrusted(result.detail)}.`);
        case 'navigation_failed':
          throw documentError(result.document, refused.count);
        case 'captured': {
          // The page navigated after load to a document the guard refused or Chromium could not load.
          if (result.document && (result.document.answeredByGuard || result.document.failure)) throw documentError(result.document, refused.count);
          const dimensions = pngDimensions(result.png);
          if (!dimensions) throw new ToolError('screenshot_failed', `Chromium returned no PNG for ${quoteUntrusted(target.href)}.`);
          await saveScreenshot({ engine: context.store, runId: context.runId, toolUseId: context.toolUseId, png: result.png });
          return { bytes: result.png.length, width: dimensions.width, height: dimensions.height, refused_requests: refused };
        }
        default:
          return assertNever(result);
      }
    } finally {
      await proxy.close();
    }
  },
});

/** What the tool's entry in src/domain/site-builder-tools.ts names: the tool worker imports it. */
export default screenshotTool;
