// The API as a running process: builds the API server and listens on BUILDFLEET_API_HOST and
// BUILDFLEET_API_PORT, and the sites server (sites-server.ts) on BUILDFLEET_SITES_HOST and
// BUILDFLEET_SITES_PORT (port 0 picks a free port; the returned urls have the real ones). The
// sites origin lives in the API process rather than a role of its own: it reads the same Redis
// through the same fleet context, serving a stored file is cheap, and what isolates a
// model-written page from the API is the origin (port or host) and the sandbox, which a browser
// enforces, not the process behind it. One more port, not one more Deployment to run.
// With BUILDFLEET_CONSOLE_PORT set, the run console (src/console/, docs/console.md) listens on a
// third port for the same reason: an origin of its own, forwarding to this API over loopback.
import { loadConfiguredAgents } from '../fleet/load-agents.js';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { FleetContext } from '../fleet/fleet-context.js';
import { buildApiServer } from './api-server.js';
import { buildSitesServer } from './sites-server.js';
import { buildConsoleServer } from '../console/console-server.js';
import type { FleetMetrics } from '../fleet/fleet-metrics.js';
import { readProviderSettings } from '../providers/provider-settings.js';

export interface RunningApi {
  url: string;
  /** Where the sites server listens (the sites origin's own address, not its public URL). */
  sitesUrl: string;
  /** Where the console listens; null when BUILDFLEET_CONSOLE_PORT is unset (no console). */
  consoleUrl: string | null;
  /** Stops accepting connections, ends open event streams and waits for in-flight requests. */
  close(): Promise<void>;
}

/** A listening server's address as a URL to connect to. */
function urlOf(app: FastifyInstance): string {
  const address = app.server.address() as AddressInfo;
  // A wildcard bind address is not somewhere to connect to; loopback reaches the same server.
  const connectable = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  // An IPv6 host must be bracketed in a URL.
  const host = connectable.includes(':') ? `[${connectable}]` : connectable;
  return `http://${host}:${address.port}`;
}

/** Requests by route pattern (not raw URL, which would explode the label set) and status. */
function countRequests(metrics: FleetMetrics) {
  return (server: FastifyInstance) => {
    server.addHook('onResponse', async (request, reply) => {
      metrics.httpRequests.inc({ route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) });
    });
  };
}

/** Starts the API server of a fleet process. */
export async function startApiProcess(fleet: FleetContext, options: { metrics?: FleetMetrics } = {}): Promise<RunningApi> {
  // The API builds no provider, but it accepts runs and tenant policies naming them: a declaration
  // whose options are wrong (BUILDFLEET_PROVIDERS.<name>.<field>) stops it at start, as it stops
  // every worker, rather than letting it accept runs no worker can call.
  readProviderSettings(fleet.config);
  // The agents it accepts runs for: the same modules every role loads (docs/agents.md).
  await loadConfiguredAgents(fleet);
  const metrics = options.metrics;
  const app = await buildApiServer(fleet, {
    logger: true,
    ...(metrics
      ? {
          extend: (server) => {
            countRequests(metrics)(server);
            server.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
              const exposition = await metrics.render();
              return reply.type(exposition.contentType).send(exposition.body);
            });
          },
        }
      : {}),
  });
  const sites = await buildSitesServer(fleet, { logger: true, ...(metrics ? { extend: countRequests(metrics) } : {}) });
  let consoleServer: FastifyInstance | null = null;
  try {
    await app.listen({ host: fleet.config.BUILDFLEET_API_HOST, port: fleet.config.BUILDFLEET_API_PORT });
    await sites.listen({ host: fleet.config.BUILDFLEET_SITES_HOST, port: fleet.config.BUILDFLEET_SITES_PORT });
    if (fleet.config.BUILDFLEET_CONSOLE_PORT !== undefined) {
      // Built once the API listens: the console forwards to the API's real (loopback) address.
      consoleServer = await buildConsoleServer({ fleet, apiUrl: urlOf(app), logger: true, ...(metrics ? { extend: countRequests(metrics) } : {}) });
      await consoleServer.listen({ host: fleet.config.BUILDFLEET_CONSOLE_HOST, port: fleet.config.BUILDFLEET_CONSOLE_PORT });
    }
  } catch (error) {
    await Promise.allSettled([app.close(), sites.close(), consoleServer?.close()]);
    throw error;
  }
  let closing: Promise<void> | null = null;
  return {
    url: urlOf(app),
    sitesUrl: urlOf(sites),
    consoleUrl: consoleServer ? urlOf(consoleServer) : null,
    close() {
      closing ??= Promise.all([app.close(), sites.close(), consoleServer?.close()]).then(() => undefined);
      return closing;
    },
  };
}
