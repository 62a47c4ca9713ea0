// GET /v1/runs/:id: the run's state, workspace listing and site links.
import type { FleetContext } from '../../fleet/fleet-context.js';
import { runParamsSchema, runViewSchema, type RunView } from '../api-schemas.js';
import { defineRoute } from '../define-route.js';
import { loadRun } from '../load-run.js';
import { toRunView } from '../run-view.js';
import { tenantOf } from '../tenant-of.js';

export function getRunRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'GET',
    url: '/v1/runs/:id',
    operationId: 'getRun',
    summary: 'Get a run',
    description: 'The run’s status, phase, plan (todos), workspace files, deployments with their URLs, token usage by class with the cache hit ratio and cost in USD, its budgets (USD and tokens) with what was spent and what remains, result or error, and open question.',
    tags: ['runs'],
    access: 'runs:read',
    params: runParamsSchema,
    responses: { 200: { description: 'The run', schema: runViewSchema } },
    errors: ['run_not_found'],
    async handler(request): Promise<RunView> {
      const run = await loadRun({ fleet, runId: request.params.id, tenant: tenantOf(request) });
      const files = await fleet.store.listFiles(run.id);
      return toRunView({ run, files, sitesBaseUrl: fleet.sitesBaseUrl, fleetTokenBudget: fleet.config.BUILDFLEET_TOKEN_BUDGET });
    },
  });
}
