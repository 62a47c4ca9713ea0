// POST /v1/runs/:id/cancel: ends a run that has not ended.
import type { FleetContext } from '../../fleet/fleet-context.js';
import { cancelRun } from '../../fleet/run-commands.js';
import { isTerminal } from '../../engine/index.js';
import { apiErrors } from '../api-errors.js';
import { runAcceptedSchema, runParamsSchema, type RunAccepted } from '../api-schemas.js';
import { defineRoute } from '../define-route.js';
import { loadRun } from '../load-run.js';
import { runTenantScopeOf } from '../tenant-of.js';

export function cancelRunRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'POST',
    url: '/v1/runs/:id/cancel',
    operationId: 'cancelRun',
    summary: 'Cancel a run',
    description:
      'Moves the run to `cancelled`; its queued jobs find it cancelled and do nothing. No body ' +
      'is needed. Another tenant’s run answers `run_not_found`; a key with the `admin` scope ' +
      'cancels any tenant’s run (an operator stopping a runaway run). Needs the `runs:write` scope.',
    tags: ['runs'],
    access: 'runs:write',
    params: runParamsSchema,
    responses: { 202: { description: 'The run was cancelled', schema: runAcceptedSchema } },
    errors: ['run_not_found', 'run_already_ended', 'unsupported_media_type', 'body_too_large', 'invalid_body', 'history_unavailable'],
    async handler(request, reply): Promise<RunAccepted> {
      const run = await loadRun({ fleet, runId: request.params.id, tenant: runTenantScopeOf(request) });
      if (isTerminal(run.status)) throw apiErrors.runAlreadyEnded();
      // False when the run ended between the read above and now.
      if (!(await cancelRun(fleet, run))) throw apiErrors.runAlreadyEnded();
      reply.code(202);
      return { id: run.id, status: 'cancelled' };
    },
  });
}
