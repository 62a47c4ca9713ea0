// Looks a run up for a request that changes it (cancel, input). A malformed id, an unknown id and
// another tenant's run (unless `tenant` is undefined: an admin key, which steers any tenant's run)
// all answer the same run_not_found, so the API never confirms that an id exists elsewhere. A run
// only history still holds has ended: run_already_ended, as it answered while Redis held it.
import type { FleetContext } from '../fleet/fleet-context.js';
import type { RunRecord } from '../engine/index.js';
import { apiErrors } from './api-errors.js';
import { RunReader } from './run-reader.js';

/** The run's record in Redis, or throws ApiError run_not_found / run_already_ended. */
export async function loadRun({ fleet, runId, tenant }: { fleet: FleetContext; runId: string; tenant: string | undefined }): Promise<RunRecord> {
  const found = await new RunReader(fleet).requireRun({ runId, tenant });
  if (found.source === 'history') throw apiErrors.runAlreadyEnded();
  return found.run;
}
