// `buildfleet api`: the API process, until SIGTERM/SIGINT.
import { loadConfig } from '../config.js';
import { createFleetContext } from '../fleet/fleet-context.js';
import { installGracefulShutdown } from '../fleet/graceful-shutdown.js';
import { startApiProcess } from '../api/api-process.js';

export async function runApiCommand(): Promise<number> {
  const config = loadConfig();
  const fleet = createFleetContext(config, 'api');
  const api = await startApiProcess(fleet);
  console.log(`api listening on ${api.url}`);
  installGracefulShutdown({
    logger: fleet.logger,
    deadlineMs: config.BUILDFLEET_SHUTDOWN_TIMEOUT_MS,
    closables: [{ name: 'api', close: () => api.close() }],
    after: () => fleet.close(),
  });
  return new Promise<number>(() => undefined);
}
