// Starting each role of the fleet in this process: the thin entry points in workers/ and the
// CLI call these.
import type { Worker } from 'bullmq';
import { loadConfig, type Config } from '../config.js';
import { createFleetContext, type FleetContext } from './fleet-context.js';
import { installGracefulShutdown } from './graceful-shutdown.js';
import { createProviderRegistry } from '../providers/provider-registry.js';
import { startModelWorker } from '../workers/model-worker.js';
import { startToolWorker } from '../workers/tool-worker.js';
import type { ConcurrencyChange } from '../workers/concurrency-governor.js';
import { createTextRecovery } from '../agent/text-recovery.js';
import { startProcessHttpServer, type ProcessHttpServer } from '../telemetry/process-http-server.js';
import { FleetMetrics } from './fleet-metrics.js';
import { startTracing } from '../telemetry/tracing.js';
import { archiveOnRunEnd, startArchiving, type RunningArchiving } from '../workers/start-archiving.js';
import { startWebhookDelivery } from '../workers/start-webhook-delivery.js';
import { startModelsApiCheck } from './start-models-api-check.js';
import { loadConfiguredAgents } from './load-agents.js';
import { closeAgentImplementations } from '../tools/agent-implementations.js';

export type WorkerRole = 'model' | 'tool';

export interface RunningWorker {
  fleet: FleetContext;
  worker: Worker;
  /** /healthz, /readyz and /metrics on BUILDFLEET_METRICS_HOST:BUILDFLEET_METRICS_PORT. */
  health: ProcessHttpServer;
  /** Stops taking jobs and waits for the running ones (force: abandons them); /readyz answers 503 from the start. */
  drain(force?: boolean): Promise<void>;
  close(force?: boolean): Promise<void>;
  metrics: FleetMetrics;
  tracing: { shutdown(): Promise<void> };
}

/** The worker's own Redis connection (it blocks on it), when it was given one to share. */
function connectionStatus(worker: Worker): string {
  const connection = worker.opts.connection as { status?: unknown } | undefined;
  return typeof connection?.status === 'string' ? connection.status : 'ready';
}

export async function startWorkerRole(role: WorkerRole, config: Config = loadConfig()): Promise<RunningWorker> {
  const tracing = startTracing({ serviceName: `buildfleet-${role}-worker`, endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const fleet = createFleetContext(config, `${role}-worker`);
  try {
    await loadConfiguredAgents(fleet);
  } catch (error) {
    await fleet.close();
    throw error;
  }
  const metrics = new FleetMetrics({ role: `${role}-worker`, queues: fleet.queues });
  metrics.observeRuns(fleet.store);
  const archiving = startHistory(fleet, role === 'tool');
  // Webhook deliveries go out from the tool workers, whose egress is the SSRF guard's already, and
  // their sweep runs there too (docs/webhooks.md); every process enqueues them (fleet-context.ts).
  const webhooks = role === 'tool' ? startWebhookDelivery(fleet) : null;
  // The model workers decide on models (limits, context window): their catalog check runs before
  // they take a job. The tool workers never call a model.
  const modelsApiCheck = role === 'model' ? await startModelsApiCheck({ fleet, observer: metrics.modelsApiCheckObserver() }) : null;
  const onJobDone = (durationMs: number) => metrics.jobDuration.observe({ queue: role }, durationMs / 1000);
  const onConcurrencyChange = (change: ConcurrencyChange) => {
    metrics.workerConcurrency.set({ queue: role }, change.to);
    fleet.logger.debug(
      { event: 'worker-concurrency', queue: role, from: change.from, to: change.to, loop_delay_p99_ms: Math.round(change.delayP99Ms) },
      'worker concurrency changed',
    );
  };
  const worker =
    role === 'model'
      ? startModelWorker(fleet, {
          providers: createProviderRegistry({ config }),
          recover: createTextRecovery(),
          hooks: metrics.modelTurnHooks(),
          onJobDone,
          onConcurrencyChange,
        })
      : startToolWorker(fleet, { hooks: metrics.toolJobHooks(), onJobDone, onConcurrencyChange });
  metrics.workerConcurrency.set({ queue: role }, worker.concurrency);
  let draining = false;
  let health: ProcessHttpServer;
  try {
    health = await startProcessHttpServer({
      port: config.BUILDFLEET_METRICS_PORT,
      host: config.BUILDFLEET_METRICS_HOST,
      ready: async () => !draining && worker.isRunning() && fleet.redis.status === 'ready' && connectionStatus(worker) === 'ready',
      metrics: () => metrics.render(),
    });
  } catch (error) {
    modelsApiCheck?.stop();
    await worker.close(true);
    await archiving?.close(true);
    await webhooks?.close(true);
    await fleet.close();
    throw error;
  }
  fleet.logger.info(
    {
      event: 'worker-start',
      queue: role,
      archive: archiving !== null,
      concurrency: worker.concurrency,
      concurrency_ceiling: role === 'model' ? config.BUILDFLEET_MODEL_CONCURRENCY : config.BUILDFLEET_TOOL_CONCURRENCY,
      loop_delay_target_ms: config.BUILDFLEET_WORKER_LOOP_DELAY_TARGET_MS,
      metrics_port: health.port,
    },
    `${role} worker started; health and metrics on ${health.url}`,
  );
  const drain = async (force = false) => {
    draining = true;
    modelsApiCheck?.stop();
    await Promise.all([worker.close(force), archiving?.close(force), webhooks?.close(force)]);
  };
  return {
    fleet,
    worker,
    health,
    drain,
    async close(force = false) {
      await drain(force);
      // The agents' MCP connections this tool worker opened (a stdio server is a child process).
      if (role === 'tool') await closeAgentImplementations();
      await health.close();
      await fleet.close();
      await tracing.shutdown();
    },
    metrics,
    tracing,
  };
}

/** The one warning a process without DATABASE_URL logs at start (docs/history.md). */
export function warnWhenHistoryIsOff(fleet: Pick<FleetContext, 'history' | 'logger'>): void {
  if (fleet.history) return;
  fleet.logger.warn(
    { event: 'history-off' },
    'DATABASE_URL is unset: finished runs are not archived to PostgreSQL and their Redis keys never expire, so Redis only grows (docs/history.md)',
  );
}

/** Run history in this process, when DATABASE_URL gives one: every run that ends here is enqueued
 * for its archive; with `runWorker` (the tool workers, which mount the sites volume the archive
 * step writes to: src/workers/start-archiving.ts) the archive worker and sweep run here too. */
export function startHistory(fleet: FleetContext, runWorker: boolean): RunningArchiving | null {
  warnWhenHistoryIsOff(fleet);
  if (!fleet.history) return null;
  archiveOnRunEnd(fleet);
  return runWorker ? startArchiving(fleet, { history: fleet.history }) : null;
}

/** Runs a worker role until SIGTERM/SIGINT. */
export async function runWorkerProcess(role: WorkerRole): Promise<void> {
  const config = loadConfig();
  const running = await startWorkerRole(role, config);
  installGracefulShutdown({
    logger: running.fleet.logger,
    deadlineMs: config.BUILDFLEET_SHUTDOWN_TIMEOUT_MS,
    closables: [{ name: `${role}-worker`, close: (force) => running.drain(force) }],
    after: async () => {
      await running.health.close();
      await running.fleet.close();
      // Flushes the spans still batched, so the last turn reaches the collector.
      await running.tracing.shutdown();
    },
  });
}
