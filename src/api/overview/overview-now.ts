// The part of the overview that is the fleet now, read from Redis through the owners of that state:
// the queues' job counts and workers (BullMQ, every shard added up, as GET /v1/admin/queues adds
// them) and the kill switch (src/safety/kill-switch.ts, as GET /v1/admin/killswitch reads it).
import type { QueueShards } from '../../jobs/queue-shards.js';
import { FLEET_QUEUE_NAMES } from '../../jobs/fleet-queues.js';
import type { KillSwitch } from '../../safety/kill-switch.js';
import { scopeIdOf } from '../../safety/kill-switch-scope.js';
import type { OverviewResponse } from './overview-schemas.js';

const COUNTED_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed'] as const;

/** Every queue's jobs per state and its workers now, over every shard. */
export async function readQueuesNow({ queues }: { queues: QueueShards }): Promise<NonNullable<OverviewResponse['queues']>> {
  const perQueue = await Promise.all(
    FLEET_QUEUE_NAMES.map(async (name) => {
      const shards = await Promise.all(
        queues.all().map(async (shard) => {
          const queue = shard.queue(name);
          const [counts, workers] = await Promise.all([queue.getJobCounts(...COUNTED_STATES), queue.getWorkersCount()]);
          return { counts, workers };
        }),
      );
      const sum = (state: (typeof COUNTED_STATES)[number]) => shards.reduce((total, shard) => total + (shard.counts[state] ?? 0), 0);
      return [
        name,
        {
          waiting: sum('waiting'),
          active: sum('active'),
          delayed: sum('delayed'),
          prioritized: sum('prioritized'),
          waitingChildren: sum('waiting-children'),
          failed: sum('failed'),
          workers: shards.reduce((total, shard) => total + shard.workers, 0),
        },
      ] as const;
    }),
  );
  return Object.fromEntries(perQueue) as NonNullable<OverviewResponse['queues']>;
}

/** The kill switch now, and its trips since `from`. With `tenant`, only the scopes that stop that
 * tenant's writes by name (the fleet's and its own); without, every scope (an admin's view). */
export async function readKillSwitchNow({
  killSwitch,
  tenant,
  from,
}: {
  killSwitch: KillSwitch;
  tenant: string | null;
  from: Date;
}): Promise<OverviewResponse['killSwitch']> {
  const state = await killSwitch.getState();
  const visible = (scopeId: string) => tenant === null || scopeId === scopeIdOf({ kind: 'fleet' }) || scopeId === scopeIdOf({ kind: 'tenant', tenant });
  return {
    mode: state.mode,
    since: state.since,
    reason: state.reason,
    scopesTripped: state.scopes.filter((scope) => scope.mode !== 'read_write' && visible(scope.scopeId)).length,
    recentTrips: state.recentTrips
      .filter((trip) => visible(trip.scopeId) && trip.atMs >= from.getTime())
      .map((trip) => ({ at: trip.at, scope: trip.scopeId, cause: trip.cause, tool: trip.tool, rate: trip.rate })),
  };
}
