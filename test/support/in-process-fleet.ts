// A whole fleet inside the test process, with nothing faked: real Redis (the suite's), the
// simulator on a loopback port reached through the real SDK, the real API on a loopback port,
// and real BullMQ workers. Tests that need separate processes use startDevFleet instead.
import type { Worker } from 'bullmq';
import { loadConfig, type Config } from '../../src/config.js';
import { createFleetContext, type FleetContext } from '../../src/fleet/fleet-context.js';
import { createModelClient } from '../../src/model/model-client.js';
import { startModelWorker, type ModelWorkerOptions } from '../../src/queues/model-worker.js';
import { startToolWorker, type ToolWorkerOptions } from '../../src/queues/tool-worker.js';
import { createTextRecovery } from '../../src/agent/text-recovery.js';
import { startApiProcess } from '../../src/api/api-process.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../src/sim/simulator-server.js';
import type { RunRecord } from '../../src/runs/run-types.js';
import { submitRun, type SubmitRunInput } from '../../src/runs/run-commands.js';
import { freePort } from '../../src/dev/private-redis.js';
import { deletePrefix, testRedisUrl, uniquePrefix } from './redis.js';

export interface InProcessFleet {
  config: Config;
  fleet: FleetContext;
  simulator: RunningSimulator;
  apiUrl: string;
  workers: Worker[];
  submit(input: Partial<SubmitRunInput> & { prompt?: string }): Promise<RunRecord>;
  waitForRun(runId: string, timeoutMs?: number): Promise<RunRecord>;
  close(): Promise<void>;
}

export async function startInProcessFleet(options: {
  label: string;
  env?: Record<string, string>;
  simulator?: SimulatorOptions;
  modelWorkers?: number;
  toolWorkers?: number;
  modelWorker?: Partial<ModelWorkerOptions>;
  toolWorker?: ToolWorkerOptions;
}): Promise<InProcessFleet> {
  const simulator = await startSimulator(options.simulator ?? {});
  const apiPort = await freePort();
  const config = loadConfig({
    REDIS_URL: testRedisUrl(),
    BUILDFLEET_PREFIX: uniquePrefix(options.label),
    ANTHROPIC_BASE_URL: simulator.url,
    BUILDFLEET_API_PORT: String(apiPort),
    BUILDFLEET_FETCH_ALLOWLIST: '',
    LOG_LEVEL: 'silent',
    ...options.env,
  });
  const fleet = createFleetContext(config, 'test');
  const api = await startApiProcess(fleet);
  const client = createModelClient(config);
  const workers: Worker[] = [];
  for (let index = 0; index < (options.modelWorkers ?? 1); index += 1) {
    workers.push(startModelWorker(fleet, { client, recover: createTextRecovery(), ...options.modelWorker }));
  }
  for (let index = 0; index < (options.toolWorkers ?? 1); index += 1) {
    workers.push(startToolWorker(fleet, options.toolWorker ?? {}));
  }
  return {
    config,
    fleet,
    simulator,
    apiUrl: api.url,
    workers,
    submit: (input) => submitRun(fleet, { tenant: 'default', prompt: 'Build a small bakery website.', ...input }),
    async waitForRun(runId, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const run = await fleet.store.getRun(runId);
        if (run && (fleet.store.isTerminalStatus(run.status) || run.status === 'waiting_for_input')) return run;
        if (Date.now() > deadline) throw new Error(`run ${runId} did not settle in ${timeoutMs} ms: ${JSON.stringify(run)}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async close() {
      await Promise.all(workers.map((worker) => worker.close(true)));
      await api.close();
      await simulator.close();
      await deletePrefix(fleet.redis, config.BUILDFLEET_PREFIX);
      await fleet.close();
    },
  };
}
