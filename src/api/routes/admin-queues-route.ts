// GET /v1/admin/queues: how many jobs each queue holds in each state, for operators.
import type { FleetContext } from '../../fleet/fleet-context.js';
import { FLEET_QUEUE_NAMES } from '../../jobs/fleet-queues.js';
import { queueCountsSchema } from '../api-schemas.js';
import { defineRoute } from '../define-route.js';

const JOB_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'paused', 'completed', 'failed'] as const;

export function adminQueuesRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'GET',
    url: '/v1/admin/queues',
    operationId: 'getQueueCounts',
    summary: 'Queue dashboard',
    description:
      `Job counts of every queue of the fleet (${FLEET_QUEUE_NAMES.join(', ')}) in ` +
      `each state (${JOB_STATES.join(', ')}), fleet-wide. Needs the \`admin\` scope.`,
    tags: ['admin'],
    access: 'admin',
    responses: { 200: { description: 'Job counts per queue and state', schema: queueCountsSchema } },
    errors: [],
    async handler() {
      // Every shard's queues (docs/scaling.md#queue-shards), each shard on its own and added up.
      const shards = await Promise.all(
        fleet.queues.all().map(async (queues) => {
          const counts = await Promise.all(FLEET_QUEUE_NAMES.map((name) => queues.queue(name).getJobCounts(...JOB_STATES)));
          return Object.fromEntries(FLEET_QUEUE_NAMES.map((name, index) => [name, counts[index]!])) as Record<
            (typeof FLEET_QUEUE_NAMES)[number],
            Record<string, number>
          >;
        }),
      );
      // Each shard's workers per queue: a shard with jobs and no worker holds its runs for ever.
      const workers = await Promise.all(
        fleet.queues.all().map(async (queues) => {
          const counts = await Promise.all(FLEET_QUEUE_NAMES.map((name) => queues.queue(name).getWorkersCount()));
          return Object.fromEntries(FLEET_QUEUE_NAMES.map((name, index) => [name, counts[index]!])) as Record<(typeof FLEET_QUEUE_NAMES)[number], number>;
        }),
      );
      const total = Object.fromEntries(
        FLEET_QUEUE_NAMES.map((name) => [
          name,
          Object.fromEntries(JOB_STATES.map((state) => [state, shards.reduce((sum, shard) => sum + (shard[name][state] ?? 0), 0)])),
        ]),
      ) as Record<(typeof FLEET_QUEUE_NAMES)[number], Record<string, number>>;
      return { queues: total, shards: shards.map((queues, shard) => ({ shard, queues, workers: workers[shard]! })) };
    },
  });
}
