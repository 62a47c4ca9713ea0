// The API as a running process: builds the server and listens on BUILDFLEET_API_HOST and
// BUILDFLEET_API_PORT (port 0 picks a free port; the returned url has the real one).
import type { AddressInfo } from 'node:net';
import type { FleetContext } from '../fleet/fleet-context.js';
import { buildApiServer } from './api-server.js';
import type { FleetMetrics } from '../fleet/fleet-metrics.js';

export interface RunningApi {
  url: string;
  /** Stops accepting connections, ends open event streams and waits for in-flight requests. */
  close(): Promise<void>;
}

/** Starts the API server of a fleet process. */
export async function startApiProcess(fleet: FleetContext, options: { metrics?: FleetMetrics } = {}): Promise<RunningApi> {
  const metrics = options.metrics;
  const app = await buildApiServer(fleet, {
    logger: true,
    ...(metrics
      ? {
          extend: (server) => {
            // Requests by route pattern (not raw URL, which would explode the label set) and status.
            server.addHook('onResponse', async (request, reply) => {
              metrics.httpRequests.inc({ route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) });
            });
            server.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
              const exposition = await metrics.render();
              return reply.type(exposition.contentType).send(exposition.body);
            });
          },
        }
      : {}),
  });
  await app.listen({ host: fleet.config.BUILDFLEET_API_HOST, port: fleet.config.BUILDFLEET_API_PORT });
  const address = app.server.address() as AddressInfo;
  // A wildcard bind address is not somewhere to connect to; loopback reaches the same server.
  const connectable = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  // An IPv6 host must be bracketed in a URL.
  const host = connectable.includes(':') ? `[${connectable}]` : connectable;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${address.port}`,
    close() {
      closing ??= app.close();
      return closing;
    },
  };
}
