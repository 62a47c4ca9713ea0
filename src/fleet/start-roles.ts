// Starting each role of the fleet in this process: the thin entry points in workers/ and the
// CLI call these.
import type { Worker } from 'bullmq';
import { loadConfig, type Config } from '../config.js';
import { createFleetContext, type FleetContext } from './fleet-context.js';
import { installGracefulShutdown } from './graceful-shutdown.js';
import { createModelClient } from '../model/model-client.js';
import { startModelWorker } from '../queues/model-worker.js';
import { startToolWorker } from '../queues/tool-worker.js';
import { createTextRecovery } from '../agent/text-recovery.js';

export type WorkerRole = 'model' | 'tool';

export interface RunningWorker {
  fleet: FleetContext;
  worker: Worker;
  close(force?: boolean): Promise<void>;
}

export function startWorkerRole(role: WorkerRole, config: Config = loadConfig()): RunningWorker {
  const fleet = createFleetContext(config, `${role}-worker`);
  const worker =
    role === 'model'
      ? startModelWorker(fleet, { client: createModelClient(config), recover: createTextRecovery() })
      : startToolWorker(fleet);
  fleet.logger.info({ event: 'worker-start', queue: role, concurrency: worker.opts.concurrency }, `${role} worker started`);
  return {
    fleet,
    worker,
    async close(force = false) {
      await worker.close(force);
      await fleet.close();
    },
  };
}

/** Runs a worker role until SIGTERM/SIGINT. */
export function runWorkerProcess(role: WorkerRole): void {
  const config = loadConfig();
  const running = startWorkerRole(role, config);
  installGracefulShutdown({
    logger: running.fleet.logger,
    deadlineMs: config.BUILDFLEET_SHUTDOWN_TIMEOUT_MS,
    closables: [{ name: `${role}-worker`, close: (force) => running.worker.close(force) }],
    after: () => running.fleet.close(),
  });
}
