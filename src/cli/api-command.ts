// `buildfleet api`: the API process, until SIGTERM/SIGINT.
import { loadConfig } from '../config.js';
import { createFleetContext } from '../fleet/fleet-context.js';
import { installGracefulShutdown } from '../fleet/graceful-shutdown.js';
import { startApiProcess } from '../api/api-process.js';
import { defaultRegistryMetrics } from '../telemetry/default-registry-metrics.js';
import { startProcessHttpServer } from '../telemetry/process-http-server.js';

export async function runApiCommand(): Promise<number> {
  const config = loadConfig();
  const fleet = createFleetContext(config, 'api');
  const api = await startApiProcess(fleet);
  let stopping = false;
  // The same /healthz, /readyz and /metrics port as every other role, so one container health
  // check and one scrape config fit them all (the API's own /healthz and /readyz stay on its port).
  const health = await startProcessHttpServer({
    port: config.BUILDFLEET_METRICS_PORT,
    host: config.BUILDFLEET_METRICS_HOST,
    ready: async () => !stopping && fleet.redis.status === 'ready',
    metrics: defaultRegistryMetrics,
  });
  console.log(`api listening on ${api.url}`);
  console.log(`health and metrics on ${health.url}`);
  installGracefulShutdown({
    logger: fleet.logger,
    deadlineMs: config.BUILDFLEET_SHUTDOWN_TIMEOUT_MS,
    closables: [
      {
        name: 'api',
        close: () => {
          stopping = true;
          return api.close();
        },
      },
    ],
    after: async () => {
      await health.close();
      await fleet.close();
    },
  });
  return new Promise<number>(() => undefined);
}
