// Run admission as the API answers it: the engine admits or refuses (its admission system owns the
// tenant's rate-limit window and active-run set: src/engine/systems/admission-system.ts), and a
// refusal becomes ApiError rate_limited (with retry-after) or too_many_active_runs.
import type { FleetContext } from '../../fleet/fleet-context.js';
import { assertNever } from '../../domain/assert-never.js';
import { apiErrors } from '../api-errors.js';

/** Admits one new run of a tenant or throws ApiError rate_limited (with retry-after) or
 * too_many_active_runs. `maxActiveRuns` is the tenant policy's maxConcurrentRuns (null = none). An
 * admitted run holds a slot until it ends or releaseRunAdmission. */
export async function admitRun({
  fleet,
  tenant,
  runId,
  maxActiveRuns,
}: {
  fleet: FleetContext;
  tenant: string;
  runId: string;
  maxActiveRuns: number | null;
}): Promise<void> {
  const admission = await fleet.store.admitRun({ tenant, runId, ratePerMinute: fleet.config.BUILDFLEET_RATE_LIMIT_PER_MINUTE, maxActiveRuns });
  switch (admission.kind) {
    case 'admitted':
      return;
    case 'rate_limited': {
      const seconds = Math.max(1, Math.ceil(admission.retryAfterMs / 1000));
      throw apiErrors
        .rateLimited(`This tenant may create ${admission.limit} runs per minute; retry in ${seconds} s.`)
        .withHeaders({ 'retry-after': String(seconds) });
    }
    case 'too_many_active_runs':
      throw apiErrors.tooManyActiveRuns(
        `This tenant has ${admission.active} runs that have not ended (at most ${admission.cap}); wait for one to end or cancel one.`,
      );
    default:
      assertNever(admission);
  }
}

/** Gives an admitted run's slot back when its creation failed after admission. */
export async function releaseRunAdmission({ fleet, tenant, runId }: { fleet: FleetContext; tenant: string; runId: string }): Promise<void> {
  await fleet.store.releaseRunAdmission({ tenant, runId });
}
