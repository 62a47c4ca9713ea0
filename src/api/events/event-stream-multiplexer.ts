// The event streams of one API process share a fixed number of Redis connections: each run's
// stream is followed by one of `connections` shared readers (shared-event-reader.ts), picked by a
// hash of the run id so every client of one run lands on the same XREAD. 200 clients of 200 runs
// hold `connections` blocking connections, not 200 (on Redis Cluster the readers poll through the
// cluster client and hold none: shared-event-reader.ts).
import type { RedisClient } from '../../redis/redis-connection.js';
import type { RunEngine } from '../../engine/index.js';
import { SharedEventReader, type EventSubscription } from './shared-event-reader.js';

export interface EventStreamMultiplexerOptions {
  engine: RunEngine;
  /** The connection the readers duplicate (and send CLIENT UNBLOCK on). */
  redis: RedisClient;
  /** How many blocking connections at most (BUILDFLEET_SSE_REDIS_CONNECTIONS). */
  connections: number;
  /** CLIENT LIST name of each blocking connection. */
  connectionName: string;
  /** Longest XREAD BLOCK; a change ends it early. */
  blockMs: number;
  /** A reader closes its connection after this long with nothing to follow. */
  idleCloseMs: number;
}

function hashOf(text: string): number {
  let hash = 0;
  for (let index = 0; index < text.length; index += 1) hash = (Math.imul(hash, 31) + text.charCodeAt(index)) >>> 0;
  return hash;
}

export class EventStreamMultiplexer {
  private readonly readers: SharedEventReader[];

  constructor(options: EventStreamMultiplexerOptions) {
    if (!Number.isInteger(options.connections) || options.connections < 1) throw new Error('EventStreamMultiplexer: connections must be a whole number ≥ 1');
    this.readers = Array.from(
      { length: options.connections },
      () =>
        new SharedEventReader({
          engine: options.engine,
          redis: options.redis,
          connectionName: options.connectionName,
          blockMs: options.blockMs,
          idleCloseMs: options.idleCloseMs,
        }),
    );
  }

  /** Follows a run's events from after `afterId` ('-' = from the start) until closed. */
  subscribe(input: { runId: string; afterId: string }): EventSubscription {
    return this.readers[hashOf(input.runId) % this.readers.length]!.subscribe(input);
  }

  /** Open subscriptions, over every reader. */
  get subscriptionCount(): number {
    return this.readers.reduce((sum, reader) => sum + reader.subscriptionCount, 0);
  }

  /** Ends every wait and closes every connection. */
  close(): void {
    for (const reader of this.readers) reader.close();
  }
}
