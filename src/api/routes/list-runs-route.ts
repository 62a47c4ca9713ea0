// GET /v1/runs: a tenant's runs, newest first, a page at a time — live runs from Redis and finished
// ones from run history, merged under one cursor (list-runs.ts).
import type { FleetContext } from '../../fleet/fleet-context.js';
import { apiErrors } from '../api-errors.js';
import { listRunsQuerySchema, runPageSchema } from '../api-schemas.js';
import { defineRoute } from '../define-route.js';
import type { RunPage } from '../list-runs.js';
import { decodeRunListCursor } from '../run-list-cursor.js';
import { RunReader } from '../run-reader.js';
import { authOf, requireTenantReadable } from '../tenant-of.js';

export function listRunsRoute({ fleet }: { fleet: FleetContext }) {
  const runs = new RunReader(fleet);
  return defineRoute({
    method: 'GET',
    url: '/v1/runs',
    operationId: 'listRuns',
    summary: 'List runs',
    description:
      'The runs of the caller’s tenant (never another’s; an admin key may name any tenant with `?tenant=`, ' +
      'another key is answered 403 `forbidden`), newest first, `limit` (1–100, default 20) at a time: ' +
      'live runs and finished ones, including those whose Redis keys have expired and only run history ' +
      'holds. Filters: `status`, creation time `from` (inclusive) and `to` (exclusive), and `prompt` ' +
      '(every word in the run’s prompt). Pass the answer’s `nextCursor` as `cursor` for the next page, ' +
      'with the same filters; it is null after the last. A run shows once across pages even when it is ' +
      'archived meanwhile. One request reads at most 1,000 runs of the tenant’s live index, so with a ' +
      'filter a page may hold fewer than `limit` runs and still have a `nextCursor`. Needs the `runs:read` scope.',
    tags: ['runs'],
    access: 'runs:read',
    query: listRunsQuerySchema,
    responses: { 200: { description: 'One page of runs', schema: runPageSchema } },
    errors: ['invalid_query', 'forbidden', 'history_unavailable'],
    async handler(request): Promise<RunPage> {
      const { limit, cursor, status, from, to, prompt, tenant: askedTenant } = request.query;
      requireTenantReadable(request, askedTenant, 'list another tenant’s runs');
      const tenant = askedTenant ?? authOf(request).tenant;
      const after = cursor === undefined ? null : decodeRunListCursor(cursor);
      if (cursor !== undefined && after === null) throw apiErrors.invalidQuery('query.cursor: must be a nextCursor from an earlier page');
      // Both sources compare creation times to the millisecond (the run index's scores are ms).
      const fromMs = from === undefined ? undefined : Date.parse(from);
      const toMs = to === undefined ? undefined : Date.parse(to);
      if (fromMs !== undefined && toMs !== undefined && fromMs >= toMs) throw apiErrors.invalidQuery('query.from: must be before query.to');
      return runs.listRuns({ filter: { tenant, status, fromMs, toMs, text: prompt }, limit, after });
    },
  });
}
