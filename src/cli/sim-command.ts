// `buildfleet sim`: the model simulator as a process of the fleet, until SIGTERM/SIGINT. Besides
// the simulator's own port it serves /healthz, /readyz and /metrics on BUILDFLEET_METRICS_PORT
// like every other role, so one container health check and one scrape config fit all roles.
import { loadConfig } from '../config.js';
import { parseSimulatorArguments } from '../sim/main.js';
import { startSimulator } from '../sim/simulator-server.js';
import { defaultRegistryMetrics } from '../telemetry/default-registry-metrics.js';
import { startProcessHttpServer } from '../telemetry/process-http-server.js';

export async function runSimCommand(argv: string[]): Promise<number> {
  const config = loadConfig();
  const simulator = await startSimulator(parseSimulatorArguments(argv));
  let stopping = false;
  const health = await startProcessHttpServer({
    port: config.BUILDFLEET_METRICS_PORT,
    host: config.BUILDFLEET_METRICS_HOST,
    ready: async () => !stopping,
    metrics: defaultRegistryMetrics,
  });
  console.log(`simulator listening on ${simulator.url}`);
  console.log(`health and metrics on ${health.url}`);
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
  stopping = true;
  await Promise.all([simulator.close(), health.close()]);
  return 0;
}
