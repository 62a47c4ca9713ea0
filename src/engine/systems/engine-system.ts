// What every system of the engine shares: the connection, the key space, the run scripts, the
// transcript cache and the logger. A system owns the keys and scripts of its part of a run's state;
// systems call each other's methods (handed to them by RunEngine), never each other's keys.
import type { Logger } from 'pino';
import type { RedisClient } from '../../redis/redis-connection.js';
import type { KeySpace } from '../keys.js';
import type { RunScripts } from '../run-scripts.js';
import type { TranscriptCache } from '../transcript-cache.js';

export interface EngineContext {
  redis: RedisClient;
  keys: KeySpace;
  scripts: RunScripts;
  transcripts: TranscriptCache;
  logger: Logger | undefined;
}

export abstract class EngineSystem {
  protected readonly redis: RedisClient;
  protected readonly keys: KeySpace;
  protected readonly scripts: RunScripts;
  protected readonly transcripts: TranscriptCache;
  protected readonly logger: Logger | undefined;

  constructor(protected readonly context: EngineContext) {
    this.redis = context.redis;
    this.keys = context.keys;
    this.scripts = context.scripts;
    this.transcripts = context.transcripts;
    this.logger = context.logger;
  }
}
