// What a worker needs of the fleet it runs in. The fleet's wiring (src/fleet/fleet-context.ts)
// hands its whole context in; declaring the slice here keeps workers below the wiring layer.
import type { RedisClient } from '../redis/redis-connection.js';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { RunEngine } from '../engine/index.js';
import type { QueueShards } from '../jobs/queue-shards.js';
import type { ModelDescriptions } from '../model/model-descriptions.js';

export interface WorkerFleet {
  config: Config;
  logger: Logger;
  redis: RedisClient;
  store: RunEngine;
  /** The fleet's queue shards: a run's jobs go to `of(run.queueShard)`, this process takes its
   * own shard's (`own`). */
  queues: QueueShards;
  /** The sites origin's base URL (fleet-context.ts): the tools' site links and trusted origin. */
  sitesBaseUrl: string;
  /** What the provider's Models API last said of each model (src/model/model-descriptions.ts). */
  modelDescriptions?: ModelDescriptions;
}

/** A worker's role as its BullMQ name and logs carry it: with more than one queue shard, the
 * shard it serves (`model:shard-2`), so a job's processedBy says which shard's worker ran it. */
export function shardRole(fleet: Pick<WorkerFleet, 'config' | 'queues'>, role: string): string {
  return fleet.config.BUILDFLEET_QUEUE_SHARDS > 1 ? `${role}:shard-${fleet.queues.ownShard}` : role;
}
