// GET /v1/runs: the caller's tenant's runs, newest first, a page at a time.
import type { FleetContext } from '../../fleet/fleet-context.js';
import { apiErrors } from '../api-errors.js';
import { listRunsQuerySchema, runPageSchema } from '../api-schemas.js';
import { defineRoute } from '../define-route.js';
import { listTenantRuns, type RunPage } from '../list-tenant-runs.js';
import { decodeRunListCursor } from '../run-list-cursor.js';
import { tenantOf } from '../tenant-of.js';

export function listRunsRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'GET',
    url: '/v1/runs',
    operationId: 'listRuns',
    summary: 'List runs',
    description:
      'The runs of the caller’s tenant (never another’s), newest first, `limit` (1–100, default 20) at a time. Pass the answer’s `nextCursor` as `cursor` for the next page; it is null after the last. With `status`, only runs in that status are listed; one request then scans at most 1,000 runs, so a page may hold fewer than `limit` runs and still have a `nextCursor`. Needs the `runs:read` scope.',
    tags: ['runs'],
    access: 'runs:read',
    query: listRunsQuerySchema,
    responses: { 200: { description: 'One page of runs', schema: runPageSchema } },
    errors: ['invalid_query'],
    async handler(request): Promise<RunPage> {
      const { limit, cursor, status } = request.query;
      const after = cursor === undefined ? null : decodeRunListCursor(cursor);
      if (cursor !== undefined && after === null) throw apiErrors.invalidQuery('query.cursor: must be a nextCursor from an earlier page');
      return listTenantRuns({ fleet, tenant: tenantOf(request), limit, after, status });
    },
  });
}
