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
    description: `Job counts of every queue of the fleet (${FLEET_QUEUE_NAMES.join(', ')}) in each state (${JOB_STATES.join(', ')}), fleet-wide. Needs the \`admin\` scope.`,
    tags: ['admin'],
    access: 'admin',
    responses: { 200: { description: 'Job counts per queue and state', schema: queueCountsSchema } },
    errors: [],
    async handler() {
      const counts = await Promise.all(FLEET_QUEUE_NAMES.map((name) => fleet.queues.queue(name).getJobCounts(...JOB_STATES)));
      return { queues: Object.fromEntries(FLEET_QUEUE_NAMES.map((name, index) => [name, counts[index]])) as Record<(typeof FLEET_QUEUE_NAMES)[number], Record<string, number>> };
    },
  });
}
