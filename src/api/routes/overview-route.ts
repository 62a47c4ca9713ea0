// GET /v1/overview: the fleet at a glance for the console's overview page — runs by outcome, cost by
// tenant and model, turn and model latency, the health signals against their alarm thresholds (run
// history), and the queues and the kill switch now (Redis). An admin sees every tenant (or one with
// `?tenant=`); another key sees its own tenant. Without run history the answer still carries what
// Redis knows, and says history is off.
import { HEALTH_THRESHOLDS } from '../../domain/health-thresholds.js';
import { OVERVIEW_RANGES, overviewWindow } from '../../domain/overview-ranges.js';
import type { FleetContext } from '../../fleet/fleet-context.js';
import { KillSwitch } from '../../safety/kill-switch.js';
import { ApiError, apiErrors } from '../api-errors.js';
import { defineRoute } from '../define-route.js';
import { readHistory } from '../history-unavailable.js';
import { overviewFigures } from '../overview/overview-figures.js';
import { readKillSwitchNow, readQueuesNow } from '../overview/overview-now.js';
import { overviewQuerySchema, overviewResponseSchema, type OverviewResponse } from '../overview/overview-schemas.js';
import { authOf, isAdminRequest, requireTenantReadable } from '../tenant-of.js';

/** The figures over time, or why there are none: history off, or PostgreSQL away just now (the
 * overview still answers what Redis knows rather than failing as a whole). */
async function readFiguresOver({
  fleet,
  tenant,
  window,
  buckets,
}: {
  fleet: FleetContext;
  tenant: string | null;
  window: ReturnType<typeof overviewWindow>;
  buckets: number;
}): Promise<Pick<OverviewResponse, 'history' | 'figures'>> {
  const history = fleet.history;
  if (!history) return { history: { state: 'off', message: 'Run history is off (no DATABASE_URL): only the fleet’s state now is shown.' }, figures: null };
  try {
    const rows = await readHistory(() =>
      history.overview({ ...(tenant === null ? {} : { tenant }), from: window.from.toISOString(), bucketSeconds: window.bucketSeconds, buckets }),
    );
    return { history: { state: 'on', message: null }, figures: overviewFigures({ history: rows, buckets }) };
  } catch (error) {
    if (!(ApiError.isInstance(error) && error.code === apiErrors.historyUnavailable.code)) throw error;
    fleet.logger.warn({ err: (error.cause as Error | undefined)?.message }, 'overview: run history unreachable; answering without it');
    return { history: { state: 'unavailable', message: error.message }, figures: null };
  }
}

export function overviewRoute({ fleet }: { fleet: FleetContext }) {
  const killSwitch = KillSwitch.forFleet(fleet);
  return defineRoute({
    method: 'GET',
    url: '/v1/overview',
    operationId: 'getOverview',
    summary: 'The fleet at a glance',
    description:
      'Runs over time by outcome and the success rate, cost over time by tenant and by model, p50/p99 turn and ' +
      'model latency, the health signals (tool_use_rate, json_in_text_rate, fence-only stops, recovery rate, and ' +
      'each by tool count) with their alarm thresholds, and kill switch trips — from run history, each run in ' +
      'the bucket of its creation time — plus the kill switch and (admin keys) the queues now, from Redis. ' +
      'An admin key sees every tenant, or one with `?tenant=`; another key sees its own tenant, and naming ' +
      'another answers 403 `forbidden`. Without run history (no DATABASE_URL) `history.state` is `off` and ' +
      '`figures` null; with PostgreSQL unreachable it is `unavailable`. Needs the `runs:read` scope.',
    tags: ['runs'],
    access: 'runs:read',
    query: overviewQuerySchema,
    responses: { 200: { description: 'The overview of the range', schema: overviewResponseSchema } },
    errors: ['invalid_query'],
    async handler(request): Promise<OverviewResponse> {
      const isAdmin = isAdminRequest(request);
      const named = request.query.tenant;
      requireTenantReadable(request, named, 'read another tenant’s overview');
      const tenant = named ?? (isAdmin ? null : authOf(request).tenant);
      const { range } = request.query;
      const window = overviewWindow({ range, now: new Date() });
      const [over, queues, killSwitchNow] = await Promise.all([
        readFiguresOver({ fleet, tenant, window, buckets: OVERVIEW_RANGES[range].buckets }),
        isAdmin ? readQueuesNow({ queues: fleet.queues }) : null,
        readKillSwitchNow({ killSwitch, tenant, from: window.from }),
      ]);
      return {
        range,
        from: window.from.toISOString(),
        to: window.to.toISOString(),
        bucketSeconds: window.bucketSeconds,
        bucketStarts: window.bucketStarts.map((start) => start.toISOString()),
        tenant,
        thresholds: { ...HEALTH_THRESHOLDS },
        ...over,
        queues,
        killSwitch: killSwitchNow,
      };
    },
  });
}
