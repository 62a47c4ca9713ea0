// The fleet's queue shards (src/domain/queue-shards.ts, docs/scaling.md#queue-shards): one
// FleetQueues per shard, made on first use. A run's jobs always go to its own shard's queues
// (`of(run.queueShard)`); a worker process takes jobs from its shard only (`own`); whatever counts
// or sweeps the fleet's queues reads every shard (`all()`).
import { MAX_QUEUE_SHARDS, queuePrefixOf } from '../domain/queue-shards.js';
import type { FleetQueues } from './fleet-queues.js';

export class QueueShards {
  private readonly made = new Map<number, FleetQueues>();

  constructor(
    private readonly make: (queuePrefix: string) => FleetQueues,
    /** BUILDFLEET_PREFIX: shard N's queues are under queuePrefixOf(prefix, N). */
    readonly prefix: string,
    /** BUILDFLEET_QUEUE_SHARDS. */
    readonly count: number,
    /** BUILDFLEET_QUEUE_SHARD: the shard whose jobs this process takes. */
    readonly ownShard: number,
  ) {}

  /** The queues of this process's own shard. */
  get own(): FleetQueues {
    return this.of(this.ownShard);
  }

  /** The queues of a shard. Any shard a run may name, including one above today's count: a run
   * keeps the shard it was created on if the fleet is later configured with fewer. */
  of(shard: number): FleetQueues {
    if (!Number.isInteger(shard) || shard < 0 || shard >= MAX_QUEUE_SHARDS) throw new Error(`not a queue shard: ${shard}`);
    let queues = this.made.get(shard);
    if (!queues) {
      queues = this.make(queuePrefixOf(this.prefix, shard));
      this.made.set(shard, queues);
    }
    return queues;
  }

  /** Every shard of the configured count, in order. */
  all(): FleetQueues[] {
    return Array.from({ length: this.count }, (_, shard) => this.of(shard));
  }

  async close(): Promise<void> {
    await Promise.all([...this.made.values()].map((queues) => queues.close()));
  }
}
