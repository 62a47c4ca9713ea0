// CSRF defence: a request that changes something (any method but GET, HEAD, OPTIONS) must carry
// an Origin header naming the console's own origin. Browsers send Origin on every such fetch or
// form post, and a page cannot forge it, so a page of another origin — a site on the sites origin
// included, which is same-site with the console on another port of the same host, where
// SameSite=Strict alone would let the cookie through — is refused before anything happens.
// Reads of data (/api, /session) are refused too when the browser's Sec-Fetch-Site says another
// site or origin asked (a <script src> or an <img> pointing here); pages and assets are not, so a
// link into the console from elsewhere still opens it.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ConsoleError } from './console-errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The paths that answer data rather than the page and its assets. */
export function isDataPath(url: string): boolean {
  return url === '/session' || url.startsWith('/session?') || url.startsWith('/api/');
}

/** Whether a request may proceed: unsafe methods only from `consoleOrigin`; reads of data not when
 * the browser says another origin asked. */
export function isSameOriginRequest({
  request,
  consoleOrigin,
}: {
  request: Pick<FastifyRequest, 'method' | 'headers' | 'url'>;
  consoleOrigin: string;
}): boolean {
  const fetchSite = request.headers['sec-fetch-site'];
  if (isDataPath(request.url) && typeof fetchSite === 'string' && fetchSite !== 'same-origin' && fetchSite !== 'none') return false;
  if (SAFE_METHODS.has(request.method)) return true;
  return request.headers.origin === consoleOrigin;
}

/** Refuses cross-origin requests (403 console_cross_origin_refused) before any body is read;
 * `consoleOrigin` says which origin a request must come from. */
export function installSameOriginGuard({ app, consoleOrigin }: { app: FastifyInstance; consoleOrigin: (request: FastifyRequest) => string }): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!isSameOriginRequest({ request, consoleOrigin: consoleOrigin(request) })) {
      request.log.warn(
        { origin: request.headers.origin ?? null, fetchSite: request.headers['sec-fetch-site'] ?? null, url: request.url },
        'console refused a cross-origin request',
      );
      // Answered here rather than thrown: a thrown error goes to the error handler of the route's
      // plugin, and Bull Board's (bull-board.ts) would word it as its own 500-style body.
      const refusal = new ConsoleError('console_cross_origin_refused');
      return reply.code(refusal.statusCode).send(refusal.toBody());
    }
  });
}
