// Looks a run up for a request. A malformed id, an unknown id and another tenant's run all answer
// the same run_not_found, so the API never confirms that an id exists elsewhere.
import type { FleetContext } from '../fleet/fleet-context.js';
import type { RunRecord } from '../engine/run-types.js';
import { apiErrors } from './api-errors.js';
import { RUN_ID_PATTERN } from './api-schemas.js';

/** The run, or throws ApiError run_not_found. `tenant` omitted means any tenant (public sites). */
export async function loadRun({ fleet, runId, tenant }: { fleet: FleetContext; runId: string; tenant?: string }): Promise<RunRecord> {
  if (!RUN_ID_PATTERN.test(runId)) throw apiErrors.runNotFound();
  const run = await fleet.store.getRun(runId);
  if (!run || (tenant !== undefined && run.tenant !== tenant)) throw apiErrors.runNotFound();
  return run;
}
