// The queues of a run known only by id: its record names its shard (src/domain/queue-shards.ts).
import type { FleetQueues } from '../jobs/fleet-queues.js';
import type { QueueShards } from '../jobs/queue-shards.js';
import type { RunEngine } from '../engine/index.js';

/** The run's shard's queues, or null when the run has no record (nothing left to act on). */
export async function queuesOfRun(
  fleet: { store: Pick<RunEngine, 'queueShardOf'>; queues: Pick<QueueShards, 'of'> },
  runId: string,
): Promise<FleetQueues | null> {
  const shard = await fleet.store.queueShardOf(runId);
  return shard === null ? null : fleet.queues.of(shard);
}
