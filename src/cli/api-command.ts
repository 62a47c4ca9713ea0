// `buildfleet api`: the API process, until SIGTERM/SIGINT.
import { loadConfig } from '../config.js';
import { createFleetContext } from '../fleet/fleet-context.js';
import { installGracefulShutdown } from '../fleet/graceful-shutdown.js';
import { startApiProcess } from '../api/api-process.js';
import { FleetMetrics } from '../fleet/fleet-metrics.js';
import { startTracing } from '../telemetry/tracing.js';
import { startProcessHttpServer } from '../telemetry/process-http-server.js';
import { startHistory } from '../fleet/start-roles.js';
import { startModelsApiCheck } from '../fleet/start-models-api-check.js';

export async function runApiCommand(): Promise<number> {
  const config = loadConfig();
  const tracing = startTracing({ serviceName: 'buildfleet-api', endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const fleet = createFleetContext(config, 'api');
  const metrics = new FleetMetrics({ role: 'api', queues: fleet.queues });
  metrics.observeRuns(fleet.store);
  // A cancel ends its run here: its archive is enqueued here too (the tool workers archive).
  startHistory(fleet, false);
  // Before the API listens, so a model only the provider's Models API describes is accepted from
  // the first submit (docs/models.md).
  const modelsApiCheck = await startModelsApiCheck({ fleet, observer: metrics.modelsApiCheckObserver() });
  const api = await startApiProcess(fleet, { metrics });
  let stopping = false;
  // The same /healthz, /readyz and /metrics port as every other role, so one container health
  // check and one scrape config fit them all (the API's own /healthz and /readyz stay on its port).
  const health = await startProcessHttpServer({
    port: config.BUILDFLEET_METRICS_PORT,
    host: config.BUILDFLEET_METRICS_HOST,
    ready: async () => !stopping && fleet.redis.status === 'ready',
    metrics: () => metrics.render(),
  });
  console.log(`api listening on ${api.url}`);
  console.log(`sites listening on ${api.sitesUrl}`);
  console.log(`health and metrics on ${health.url}`);
  installGracefulShutdown({
    logger: fleet.logger,
    deadlineMs: config.BUILDFLEET_SHUTDOWN_TIMEOUT_MS,
    closables: [
      {
        name: 'api',
        close: () => {
          stopping = true;
          modelsApiCheck?.stop();
          return api.close();
        },
      },
    ],
    after: async () => {
      await health.close();
      await fleet.close();
      await tracing.shutdown();
    },
  });
  return new Promise<number>(() => undefined);
}
