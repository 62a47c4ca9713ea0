// The sites origin as a Fastify instance (not listening: api-process.ts listens on
// BUILDFLEET_SITES_HOST:BUILDFLEET_SITES_PORT; tests inject). It serves the site routes and nothing
// else — no /v1, no /docs, no auth — so a model-written page shares no origin with the API, and
// every answer (files, redirects, errors) carries the sandboxing headers of
// site-security-headers.ts. Errors keep the API's `{ error: { code, message } }` shape and codes.
import Fastify, { type FastifyInstance } from 'fastify';
import type { FleetContext } from '../fleet/fleet-context.js';
import { registerRoute } from './define-route.js';
import { errorHandlingServerOptions, installErrorHandling } from './install-error-handling.js';
import { deploymentRootRedirectRoute, deploymentSiteRoute, liveSiteRoute, ogImageRoute, siteRootRedirectRoute } from './routes/site-routes.js';
import { zodSerializerCompiler, zodValidatorCompiler } from './zod-route-compilers.js';
import { SITE_SECURITY_HEADERS } from './sites/site-security-headers.js';

export interface SitesServerOptions {
  /** Log requests through the fleet's logger (default: off). */
  logger?: boolean;
  /** Adds hooks before the server is sealed (the process counts requests here). */
  extend?: (app: FastifyInstance) => void;
}

/** Builds the sites server over a fleet context; the caller listens (or injects) and closes it. */
export async function buildSitesServer(fleet: FleetContext, options: SitesServerOptions = {}): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    ...(options.logger ? { loggerInstance: fleet.logger.child({ component: 'sites' }) } : { logger: false }),
    // Only GET and HEAD are routed; a body is never read.
    bodyLimit: 1024,
    requestIdHeader: false,
    ...errorHandlingServerOptions({ frameworkErrorHeaders: SITE_SECURITY_HEADERS }),
  }) as unknown as FastifyInstance;

  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(zodSerializerCompiler);
  installErrorHandling({ app });
  // Last before sending, so no answer leaves without them (a handler's own headers included).
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(SITE_SECURITY_HEADERS);
    return payload;
  });

  registerRoute({ app, route: siteRootRedirectRoute() });
  registerRoute({ app, route: liveSiteRoute({ fleet }) });
  registerRoute({ app, route: ogImageRoute({ fleet }) });
  registerRoute({ app, route: deploymentRootRedirectRoute() });
  registerRoute({ app, route: deploymentSiteRoute({ fleet }) });

  options.extend?.(app);
  await app.ready();
  return app;
}
