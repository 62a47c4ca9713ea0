// A whole fleet inside one process, with nothing faked: real Redis, the simulator on a loopback
// port reached through the real SDK, the real API on a loopback port, and real BullMQ workers.
// The experiments, the benchmarks and the integration tests use it; `buildfleet dev` runs the
// same parts as separate processes instead.
import { closeAgentImplementations } from '../tools/agent-implementations.js';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'bullmq';
import { loadConfig, type Config } from '../config.js';
import { createFleetContext, type FleetContext } from '../fleet/fleet-context.js';
import { unlinkKeysMatching } from '../redis/redis-scan.js';
import { keyPatternsOfPrefix } from '../domain/queue-shards.js';
import { createProviderRegistry } from '../providers/provider-registry.js';
import { startModelWorker, type ModelWorkerOptions } from '../workers/model-worker.js';
import { startToolWorker, type ToolWorkerOptions } from '../workers/tool-worker.js';
import { createTextRecovery } from '../agent/text-recovery.js';
import { startApiProcess } from '../api/api-process.js';
import { ApiKeyStore } from '../auth/api-key-store.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../sim/simulator-server.js';
import type { RunRecord } from '../engine/index.js';
import { isTerminal } from '../domain/run-outcomes.js';
import { submitRun, type SubmitRunInput } from '../fleet/run-commands.js';
import { freePorts } from './private-redis.js';
import type { Logger } from 'pino';
import type { FleetMetrics } from '../fleet/fleet-metrics.js';
import { startModelsApiCheck } from '../fleet/start-models-api-check.js';
import type { ModelsApiSource } from '../model/models-api-check.js';
import { archiveOnRunEnd, startArchiving, type RunningArchiving } from '../workers/start-archiving.js';
import { startWebhookDelivery, type RunningWebhookDelivery, type WebhookDeliveryOptions } from '../workers/start-webhook-delivery.js';

export interface InProcessFleet {
  config: Config;
  fleet: FleetContext;
  simulator: RunningSimulator;
  apiUrl: string;
  /** The sites origin's own address (BUILDFLEET_SITES_PUBLIC_URL unless the env names another). */
  sitesUrl: string;
  /** The run console's address when it runs (`console: true` or BUILDFLEET_CONSOLE_PORT), else null. */
  consoleUrl: string | null;
  /** An admin API key of tenant `default`, for calling the API. */
  apiKey: string;
  workers: Worker[];
  submit(input: Partial<SubmitRunInput>): Promise<RunRecord>;
  /** Resolves when the run is terminal or waiting for input. */
  waitForRun(runId: string, timeoutMs?: number): Promise<RunRecord>;
  close(): Promise<void>;
}

export interface InProcessFleetOptions {
  redisUrl: string;
  prefix?: string;
  env?: Record<string, string>;
  simulator?: SimulatorOptions;
  modelWorkers?: number;
  toolWorkers?: number;
  modelWorker?: Partial<ModelWorkerOptions>;
  toolWorker?: ToolWorkerOptions;
  /** Delete every key of the prefix on close (tests); experiments keep nothing either. */
  cleanUp?: boolean;
  /** With a database (DATABASE_URL in `env`): false runs no archive worker nor sweep, and
   * enqueues no archive at run end (tests that drive the archive themselves). Default: archived
   * as in a production fleet (BUILDFLEET_RUN_RETENTION_SECONDS, BUILDFLEET_ARCHIVE_SWEEP_INTERVAL_MS). */
  archive?: false;
  /** The webhook worker's and sweep's options (they run beside the tool workers, as in the tool
   * worker role). */
  webhookWorker?: WebhookDeliveryOptions;
  /** Starts the run console on a port of its own (docs/console.md). */
  console?: boolean;
  /** Runs the catalog check against the Models API (true: the simulator's, through the fleet's
   * provider; or this source) at start, as the API and model worker processes do. Default off. */
  modelsApiCheck?: true | ModelsApiSource;
  /** Wires the turn and tool hooks and the API's /metrics to these metrics. */
  metrics?: FleetMetrics;
  logger?: Logger;
}

export async function startInProcessFleet(options: InProcessFleetOptions): Promise<InProcessFleet> {
  const simulator = await startSimulator(options.simulator ?? {});
  // Sites get an origin of their own, as in every fleet (src/api/api-process.ts): two ports chosen
  // together, so they are never the same one.
  // With a console, its port is chosen in the same call: ports asked for one after another may
  // come back the same (freePorts).
  const [apiPort, sitesPort, consolePort] = (await freePorts(options.console ? 3 : 2)) as [number, number, number | undefined];
  // Sites are stored in a directory of their own unless the env names one; removed with the keys.
  const ownSitesDir = options.env?.BUILDFLEET_SITES_DIR ? null : await mkdtemp(join(tmpdir(), 'bf-sites-fleet-'));
  const environment: NodeJS.ProcessEnv = {
    ...(ownSitesDir ? { BUILDFLEET_SITES_DIR: ownSitesDir } : {}),
    REDIS_URL: options.redisUrl,
    BUILDFLEET_PREFIX: options.prefix ?? `bf${randomBytes(4).toString('hex')}`,
    ANTHROPIC_BASE_URL: simulator.url,
    BUILDFLEET_API_PORT: String(apiPort),
    BUILDFLEET_SITES_PORT: String(sitesPort),
    BUILDFLEET_SITES_PUBLIC_URL: `http://127.0.0.1:${sitesPort}`,
    ...(consolePort ? { BUILDFLEET_CONSOLE_PORT: String(consolePort) } : {}),
    LOG_LEVEL: 'silent',
    ...options.env,
  };
  const config = loadConfig(environment);
  const fleet = createFleetContext(config, 'in-process', options.logger);
  // With queue shards, every shard gets workers of its own, each on a context bound to its shard
  // (BUILDFLEET_QUEUE_SHARD), as a sharded deployment runs one set of worker processes per shard.
  const shardFleets = Array.from({ length: config.BUILDFLEET_QUEUE_SHARDS }, (_, shard) =>
    shard === fleet.queues.ownShard
      ? fleet
      : // One process, one set of Models API descriptions (src/model/model-descriptions.ts).
        {
          ...createFleetContext(loadConfig({ ...environment, BUILDFLEET_QUEUE_SHARD: String(shard) }), 'in-process', options.logger),
          modelDescriptions: fleet.modelDescriptions,
        },
  );
  const metrics = options.metrics;
  if (metrics && !metrics.queues) metrics.queues = fleet.queues;
  // The fleet's one engine: every run end of this process is counted once.
  metrics?.observeRuns(fleet.store);
  // The catalog check as the API and model worker processes run it, only when asked: most tests
  // count the simulator's requests (src/fleet/start-models-api-check.ts).
  const modelsApiCheck = options.modelsApiCheck
    ? await startModelsApiCheck({
        fleet,
        observer: metrics?.modelsApiCheckObserver(),
        source: options.modelsApiCheck === true ? undefined : options.modelsApiCheck,
      })
    : null;
  const api = await startApiProcess(fleet, metrics ? { metrics } : {});
  const { token: apiKey } = await new ApiKeyStore({ redis: fleet.redis, keys: fleet.store.keys }).create({
    tenant: 'default',
    scopes: ['admin'],
    name: 'in-process fleet',
  });
  // One registry for every model worker of the process, as one worker process has one.
  const providers = createProviderRegistry({ config });
  const workers: Worker[] = [];
  for (const shardFleet of shardFleets) {
    for (let index = 0; index < (options.modelWorkers ?? 1); index += 1) {
      workers.push(
        startModelWorker(shardFleet, {
          // A test's own client or registry (options.modelWorker) replaces the shared registry.
          ...(options.modelWorker?.client || options.modelWorker?.providers ? {} : { providers }),
          recover: createTextRecovery(),
          ...(metrics ? { hooks: metrics.modelTurnHooks(), onJobDone: (ms: number) => metrics.jobDuration.observe({ queue: 'model' }, ms / 1000) } : {}),
          ...options.modelWorker,
        }),
      );
    }
    for (let index = 0; index < (options.toolWorkers ?? 1); index += 1) {
      workers.push(
        startToolWorker(shardFleet, {
          ...(metrics ? { hooks: metrics.toolJobHooks(), onJobDone: (ms: number) => metrics.jobDuration.observe({ queue: 'tool' }, ms / 1000) } : {}),
          ...options.toolWorker,
        }),
      );
    }
  }
  // Run history as the worker processes run it (src/fleet/start-roles.ts): every run end enqueued,
  // and the archive worker and sweep beside the other workers.
  // Webhook deliveries, as the tool worker role delivers them (src/fleet/start-roles.ts); the
  // fleet context enqueues them at every run end and park, and the sweep what such an enqueue lost.
  const webhooks: RunningWebhookDelivery[] = [];
  const archiving: RunningArchiving[] = [];
  for (const shardFleet of shardFleets) {
    const delivery = startWebhookDelivery(shardFleet, options.webhookWorker);
    webhooks.push(delivery);
    workers.push(delivery.worker);
    if (shardFleet.history && options.archive !== false) {
      archiveOnRunEnd(shardFleet);
      const started = startArchiving(shardFleet, { history: shardFleet.history });
      archiving.push(started);
      workers.push(started.worker);
    }
  }
  return {
    config,
    fleet,
    simulator,
    apiUrl: api.url,
    sitesUrl: api.sitesUrl,
    consoleUrl: api.consoleUrl,
    apiKey,
    workers,
    submit: (input) => submitRun(fleet, { tenant: 'default', prompt: 'Build a small bakery website.', ...input }),
    async waitForRun(runId, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const run = await fleet.store.getRun(runId);
        if (run && (isTerminal(run.status) || run.status === 'waiting_for_input')) return run;
        if (Date.now() > deadline) throw new Error(`run ${runId} did not settle in ${timeoutMs} ms: ${JSON.stringify(run)}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async close() {
      modelsApiCheck?.stop();
      await Promise.all([...archiving, ...webhooks].map((running) => running.sweeper.stop()));
      await Promise.all(workers.map((worker) => worker.close(true)));
      // The agents' MCP connections its tool workers opened; the next fleet connects again.
      await closeAgentImplementations();
      await api.close();
      await simulator.close();
      if (options.cleanUp !== false) await deletePrefix(fleet, config.BUILDFLEET_PREFIX);
      await Promise.all(shardFleets.map((shardFleet) => shardFleet.close()));
      if (ownSitesDir && options.cleanUp !== false) await rm(ownSitesDir, { recursive: true, force: true });
    },
  };
}

async function deletePrefix(fleet: FleetContext, prefix: string): Promise<void> {
  for (const pattern of keyPatternsOfPrefix(prefix)) await unlinkKeysMatching(fleet.redis, pattern);
}
