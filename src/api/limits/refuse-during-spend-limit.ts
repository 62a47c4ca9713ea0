// Admission while the model account's spend limit is reached: every new run would fail its first
// model call with billing_spend_cap, so POST /v1/runs refuses it up front with its own code and a
// retry-after of the flag's remaining life (src/model/spend-limit-flag.ts).
import type { FleetContext } from '../../fleet/fleet-context.js';
import { SpendLimitFlagStore } from '../../model/spend-limit-flag.js';
import { apiErrors } from '../api-errors.js';

/** Throws ApiError model_spend_limit_reached while the spend-limit flag is raised. */
export async function refuseDuringSpendLimit({ fleet }: { fleet: FleetContext }): Promise<void> {
  const { flag } = await new SpendLimitFlagStore(fleet.redis, fleet.config).get();
  if (!flag) return;
  const seconds = Math.max(1, Math.ceil((Date.parse(flag.expiresAt) - Date.now()) / 1000));
  throw apiErrors
    .modelSpendLimitReached(
      `The model account reached its spend limit at ${flag.setAt} (${flag.message}). ` +
        `New runs are paused until ${flag.expiresAt} or until an operator clears ` +
        `the pause (POST /v1/admin/spend-limit/clear) after raising the limit.`,
    )
    .withHeaders({ 'retry-after': String(seconds) });
}
