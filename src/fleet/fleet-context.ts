// What every process of the fleet shares: config, logger, one Redis connection for commands,
// the run store and the queues. Blocking BullMQ workers open their own connections.
import type { RedisClient } from '../redis/redis-connection.js';
import pg from 'pg';
import type { Logger } from 'pino';
import { apiBaseUrlOf, sitesBaseUrlOf, type Config } from '../config.js';
import { createKeySpace, RunEngine } from '../engine/index.js';
import { HistoryStore } from '../history/history-store.js';
import { FleetQueues } from '../jobs/fleet-queues.js';
import { QueueShards } from '../jobs/queue-shards.js';
import { redisTargetOf } from '../domain/redis-target.js';
import { resolveRunModelSettings } from '../domain/resolve-run-model-settings.js';
import { connectRedis } from '../redis/redis-connection.js';
import { createLogger } from '../telemetry/logger.js';
import { registerSecretsFromEnvironment } from '../telemetry/redact-secrets.js';
import { addSpanEvent } from '../telemetry/tracing.js';
import { workerIdentity } from '../redis/redis-connection.js';
import { enqueueWebhooksOnRunEvents } from '../workers/enqueue-webhooks.js';
import { ModelDescriptions } from '../model/model-descriptions.js';

export interface FleetContext {
  config: Config;
  logger: Logger;
  redis: RedisClient;
  store: RunEngine;
  /** The queue shards (src/jobs/queue-shards.ts): `of(run.queueShard)` for a run's jobs, `own` for
   * the jobs this process takes. */
  queues: QueueShards;
  /** Run history in PostgreSQL (DATABASE_URL, docs/history.md): finished runs are read from it once
   * Redis no longer holds them. null without DATABASE_URL: every read is Redis-only. */
  history: HistoryStore | null;
  /** Base URL of the API as users reach it (BUILDFLEET_PUBLIC_URL). */
  publicBaseUrl: string;
  /** Base URL of the sites origin as users and tools reach it (BUILDFLEET_SITES_PUBLIC_URL): every
   * site and deployment link, and the origin the fetch tools trust. Never the API's origin. */
  sitesBaseUrl: string;
  /** What the provider's Models API last said of each model, for submits and turns
   * (src/model/model-descriptions.ts); filled by the catalog check (start-models-api-check.ts). */
  modelDescriptions: ModelDescriptions;
  close(): Promise<void>;
}

/** Connections per process to the history database: reads of finished runs and archive jobs are
 * short single statements, so a few connections serve many requests (PostgreSQL's default limit is
 * 100 connections for the whole fleet). */
const HISTORY_POOL_SIZE = 5;
/** How long a history read or write may wait for a PostgreSQL connection. */
const HISTORY_CONNECT_TIMEOUT_MS = 5_000;
/** The longest statement the history runs (server side: statement_timeout). */
const HISTORY_STATEMENT_TIMEOUT_MS = 30_000;

export function createFleetContext(config: Config, role: string, logger?: Logger): FleetContext {
  registerSecretsFromEnvironment(process.env);
  const resolvedLogger = (logger ?? createLogger({ level: config.LOG_LEVEL, role })).child({ worker: workerIdentity(role) });
  const redis = connectRedis(redisTargetOf(config), role === 'api' ? 'api' : 'worker');
  redis.on('error', (error) => resolvedLogger.warn({ err: error.message }, 'redis connection error'));
  // A deprecated default model still runs (loadConfig refused a retired one); every process says
  // so once at boot, naming the date and the successor, as each run on it says so in its events.
  const deprecation = resolveRunModelSettings({ config }).deprecation;
  if (deprecation)
    resolvedLogger.warn(
      { model: deprecation.model, retires_on: deprecation.retiresOn, successor: deprecation.successor },
      `BUILDFLEET_MODEL: ${deprecation.message}`,
    );
  const keys = createKeySpace(config.BUILDFLEET_PREFIX);
  const store = new RunEngine(redis, keys, { logger: resolvedLogger, transcriptCacheBytes: config.BUILDFLEET_TRANSCRIPT_CACHE_MB * 1024 * 1024 });
  // Every trace line of a run goes to the log and, as a span event, to the active span.
  store.observeEvents((event) => {
    // Every event is in the run's stream and its trace already; as a log line it is debug detail,
    // except warnings and the run's birth (its end is the engine's own info line).
    const level = event.level === 'warn' ? 'warn' : event.event === 'run-create' ? 'info' : 'debug';
    if (resolvedLogger.isLevelEnabled(level)) resolvedLogger[level](event, event.event);
    addSpanEvent(event.event, () => {
      const attributes: Record<string, string | number | boolean> = {};
      for (const [key, value] of Object.entries(event)) {
        if (value === null || value === undefined) continue;
        attributes[`buildfleet.${key}`] = typeof value === 'object' ? JSON.stringify(value) : (value as string | number | boolean);
      }
      return attributes;
    });
  });
  const queues = new QueueShards(
    (queuePrefix) => new FleetQueues(redis, { queuePrefix }, config.BUILDFLEET_MODEL_ATTEMPTS, config.BUILDFLEET_COMPLETED_JOBS_KEPT),
    config.BUILDFLEET_PREFIX,
    config.BUILDFLEET_QUEUE_SHARDS,
    config.BUILDFLEET_QUEUE_SHARD,
  );
  // Here, in every process that can end or park a run (API, workers, CLI experiments), so none of
  // them misses a run's webhook (docs/webhooks.md); runs without one cost a record read per end.
  enqueueWebhooksOnRunEvents({ store, queues, logger: resolvedLogger, config });
  // Bounded waits: node-postgres waits for a connection forever by default, so a PostgreSQL that
  // drops packets would hold every listing and every read of an expired run for the kernel's TCP
  // timeout; with these they answer 503 history_unavailable within seconds. A statement longer
  // than HISTORY_STATEMENT_TIMEOUT_MS is a fault (the largest is one run's archive).
  const historyPool = config.DATABASE_URL
    ? new pg.Pool({
        connectionString: config.DATABASE_URL,
        max: HISTORY_POOL_SIZE,
        connectionTimeoutMillis: HISTORY_CONNECT_TIMEOUT_MS,
        statement_timeout: HISTORY_STATEMENT_TIMEOUT_MS,
        query_timeout: HISTORY_STATEMENT_TIMEOUT_MS + 5_000,
      })
    : null;
  // An idle client whose server goes away emits here; without a listener that would crash the
  // process. The next query through the pool reports the failure where it is awaited.
  historyPool?.on('error', (error) => resolvedLogger.warn({ err: error.message }, 'postgres connection error'));
  return {
    config,
    logger: resolvedLogger,
    redis,
    store,
    queues,
    history: historyPool ? new HistoryStore(historyPool) : null,
    publicBaseUrl: apiBaseUrlOf(config),
    sitesBaseUrl: sitesBaseUrlOf(config),
    modelDescriptions: new ModelDescriptions(),
    async close() {
      await queues.close();
      await historyPool
        ?.end()
        .catch((error: unknown) => resolvedLogger.warn({ err: error instanceof Error ? error.message : String(error) }, 'postgres pool did not close cleanly'));
      // QUIT lets commands still in flight (a last event, a metrics read) finish; disconnecting
      // would reject them with "Connection is closed" where nobody awaits them any more.
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}
