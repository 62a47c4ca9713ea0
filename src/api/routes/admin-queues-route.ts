// GET /v1/admin/queues: how many jobs each queue holds in each state, for operators.
import type { FleetContext } from '../../fleet/fleet-context.js';
import { queueCountsSchema } from '../api-schemas.js';
import { defineRoute } from '../define-route.js';

const JOB_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'paused', 'completed', 'failed'] as const;

export function adminQueuesRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'GET',
    url: '/v1/admin/queues',
    operationId: 'getQueueCounts',
    summary: 'Queue dashboard',
    description: `Job counts of the model and tool queues in each state (${JOB_STATES.join(', ')}), fleet-wide. Needs the \`admin\` scope.`,
    tags: ['admin'],
    access: 'admin',
    responses: { 200: { description: 'Job counts per queue and state', schema: queueCountsSchema } },
    errors: [],
    async handler() {
      const [model, tool] = await Promise.all([fleet.queues.model.getJobCounts(...JOB_STATES), fleet.queues.tool.getJobCounts(...JOB_STATES)]);
      return { queues: { model, tool } };
    },
  });
}
