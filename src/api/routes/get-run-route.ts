// GET /v1/runs/:id: the run's state, workspace listing and site links — from Redis while it holds
// the run, else from run history (run-reader.ts).
import type { FleetContext } from '../../fleet/fleet-context.js';
import { runParamsSchema, runViewSchema, type RunView } from '../api-schemas.js';
import { defineRoute } from '../define-route.js';
import { RunReader } from '../run-reader.js';
import { runTenantScopeOf } from '../tenant-of.js';

export function getRunRoute({ fleet }: { fleet: FleetContext }) {
  const runs = new RunReader(fleet);
  return defineRoute({
    method: 'GET',
    url: '/v1/runs/:id',
    operationId: 'getRun',
    summary: 'Get a run',
    description:
      'The run’s status, phase, plan (todos), workspace files, deployments with their URLs, token ' +
      'usage by class with the cache hit ratio and cost in USD, its budgets (USD and tokens) with ' +
      'what was spent and what remains, result or error, and open question. A finished run answers ' +
      'the same once its Redis keys have expired (`BUILDFLEET_RUN_RETENTION_SECONDS` after it was ' +
      'archived): from run history. Secrets in the result, question and plan are redacted. Another ' +
      'tenant’s run answers `run_not_found`; a key with the `admin` scope reads every tenant’s runs.',
    tags: ['runs'],
    access: 'runs:read',
    params: runParamsSchema,
    responses: { 200: { description: 'The run', schema: runViewSchema } },
    errors: ['run_not_found', 'history_unavailable'],
    async handler(request): Promise<RunView> {
      return runs.runView({ runId: request.params.id, tenant: runTenantScopeOf(request) });
    },
  });
}
