// What a worker needs of the fleet it runs in. The fleet's wiring (src/fleet/fleet-context.ts)
// hands its whole context in; declaring the slice here keeps workers below the wiring layer.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { RunEngine } from '../engine/run-engine.js';
import type { FleetQueues } from '../jobs/fleet-queues.js';

export interface WorkerFleet {
  config: Config;
  logger: Logger;
  redis: Redis;
  store: RunEngine;
  queues: FleetQueues;
  /** The sites origin's base URL (fleet-context.ts): the tools' site links and trusted origin. */
  sitesBaseUrl: string;
}
