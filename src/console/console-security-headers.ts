// The headers of every console answer. The CSP allows only the console's own scripts, styles and
// connections: no inline script or style, no eval, nothing from another origin, and no framing
// (frame-ancestors 'none', and X-Frame-Options for browsers that predate it), so a page elsewhere
// can neither run code here nor overlay the console to steal clicks. The published sites are only
// linked, never framed: they live on the sites origin and open in a tab of their own.
import type { FastifyInstance } from 'fastify';
import { isBullBoardUrl } from './bull-board.js';

export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Bull Board's page (/queues, admin only) as it ships: inline styles (a loading screen, and React's
 * style attributes), data: images and fonts in its stylesheet, and a <base href> its relative asset
 * paths resolve against. Scripts stay 'self' only (its page has no inline script; its
 * configuration is a JSON data block, which no CSP governs), nothing loads from another origin (its
 * web font link to a font host is refused; the page falls back to a local font) and framing stays
 * forbidden. Used on /queues only: the console's own pages keep the strict policy above. */
export const BULL_BOARD_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Adds the security headers to every answer of the console server. */
export function installConsoleSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('content-security-policy', isBullBoardUrl(request.url) ? BULL_BOARD_CONTENT_SECURITY_POLICY : CONSOLE_CONTENT_SECURITY_POLICY);
    reply.header('x-frame-options', 'DENY');
    reply.header('x-content-type-options', 'nosniff');
    // A run page's URL names the run; another site need not learn it from a link's Referer.
    reply.header('referrer-policy', 'no-referrer');
    // A window the console opens (a published site) gets no handle back to the console.
    reply.header('cross-origin-opener-policy', 'same-origin');
    reply.header('cross-origin-resource-policy', 'same-origin');
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
}
