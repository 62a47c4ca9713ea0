// POST /v1/runs/:id/resume: continues a run that failed for a transient reason from its failed
// turn (docs/run-states.md#resume), within its tenant's limits again.
import type { FleetContext } from '../../fleet/fleet-context.js';
import { readTenantLimits } from '../../fleet/tenant-account.js';
import { resumeRun, type ResumeOutcome } from '../../fleet/run-commands.js';
import { isResumableRunError, RESUMABLE_RUN_ERRORS, isTerminal, type RunRecord } from '../../engine/index.js';
import { assertNever } from '../../domain/assert-never.js';
import { apiErrors, ApiError } from '../api-errors.js';
import { runAcceptedSchema, runParamsSchema, type RunAccepted } from '../api-schemas.js';
import { defineRoute } from '../define-route.js';
import { RunReader } from '../run-reader.js';
import { admitRun, releaseRunAdmission } from '../limits/admit-run.js';
import { admitRunBudget } from '../limits/admit-run-budget.js';
import { refuseDuringSpendLimit } from '../limits/refuse-during-spend-limit.js';
import { authOf, runTenantScopeOf } from '../tenant-of.js';
import { admitRunLimits } from '../limits/admit-run-limits.js';

const RESUMABLE_CODES = Object.keys(RESUMABLE_RUN_ERRORS).join(', ');

/** The refusal of a run that is not failed, or failed for a reason a new call cannot mend. */
function notResumable(reason: { status: string } | { code: string }): ApiError {
  if ('status' in reason) return apiErrors.runNotResumable(`The run is ${reason.status}; only a failed run can be resumed.`);
  return apiErrors.runNotResumable(
    `The run failed with ${reason.code || 'no error code'}, which is not resumable ` +
      `(resumable: ${RESUMABLE_CODES}); rerun it instead (POST /v1/runs/{id}/rerun).`,
  );
}

/** Throws the refusal when the run as read cannot be resumed; the engine checks again in its step. */
function requireResumable(run: RunRecord): void {
  if (run.status !== 'failed') throw notResumable({ status: run.status });
  const code = run.error?.code ?? '';
  if (!isResumableRunError(code)) throw notResumable({ code });
}

function refusalOf(outcome: Exclude<ResumeOutcome, { kind: 'resumed' }>): ApiError {
  switch (outcome.kind) {
    // Its keys expired between the read and the step: it is only in history now.
    case 'missing':
      return apiErrors.runArchived();
    case 'not_failed':
      return notResumable({ status: outcome.status });
    case 'not_resumable':
      return notResumable({ code: outcome.code });
    case 'changed':
      return apiErrors.runNotResumable('The run kept changing while it was being resumed; read it again and retry.');
    default:
      return assertNever(outcome);
  }
}

export function resumeRunRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'POST',
    url: '/v1/runs/:id/resume',
    operationId: 'resumeRun',
    summary: 'Resume a failed run from its failed turn',
    description:
      'Continues a `failed` run whose error code is resumable (`model_unavailable`, ' +
      '`rate_limit_exhausted`, `billing_spend_cap`, `job_attempts_exhausted`, `run_stalled`: the table in ' +
      'docs/run-states.md#resume) from the turn that failed: the run goes back to `running` (event ' +
      '`run-reopen`), the failed turn’s model call is made again, the turns before it are not (their ' +
      'answers stay committed and paid once), and tool calls already answered are answered from the ' +
      'ledger, never run twice. Its tenant’s limits apply again as for a new run: the spend-limit flag ' +
      '(503 `model_spend_limit_reached`), the tenant’s day and month spend (429 ' +
      '`tenant_spend_limit_reached`), its creations per minute (429 `rate_limited`) and its runs not yet ' +
      'ended (429 `too_many_active_runs`), and its policy against the run’s model, turns and options (403 ' +
      '`model_not_allowed`, 403 `provider_not_allowed`, 400 `max_turns_above_tenant_maximum`, 403 ' +
      '`run_option_requires_admin`); the run keeps the budgets it was created with. Any other status or ' +
      'error code is 409 `run_not_resumable` (two resumes at once resume once: the second finds the run ' +
      '`running`); a run only history holds (its keys expired after `BUILDFLEET_RUN_RETENTION_SECONDS`) is ' +
      '409 `run_archived`. `POST /v1/runs/{id}/rerun` starts the same input as a new run instead. No body ' +
      'is needed. Another tenant’s run answers `run_not_found`; a key with the `admin` scope resumes any ' +
      'tenant’s run, admitted against the limits of the run’s tenant (with the admin key’s own ' +
      'allowances: admin-only options, budgets above the tenant’s maximums). Needs the `runs:write` scope.',
    tags: ['runs'],
    access: 'runs:write',
    params: runParamsSchema,
    responses: { 202: { description: 'The run is running again; its failed turn was enqueued', schema: runAcceptedSchema } },
    errors: [
      'run_not_found',
      'run_not_resumable',
      'run_archived',
      'rate_limited',
      'too_many_active_runs',
      'model_spend_limit_reached',
      'tenant_spend_limit_reached',
      'model_not_allowed',
      'provider_not_allowed',
      'max_turns_above_tenant_maximum',
      'run_option_requires_admin',
      'history_unavailable',
      'unsupported_media_type',
      'body_too_large',
      'invalid_body',
    ],
    async handler(request, reply): Promise<RunAccepted> {
      const found = await new RunReader(fleet).requireRun({ runId: request.params.id, tenant: runTenantScopeOf(request) });
      if (found.source === 'history') throw apiErrors.runArchived();
      const run = found.run;
      // The run's own tenant, also when an admin key of another tenant resumes it: the run counts,
      // and spends, against the tenant it belongs to.
      const tenant = run.tenant;
      requireResumable(run);
      // Admitted like a new run (the slot is the run's own id, as when it was created); the run's
      // budgets stay those it was created with, so only the tenant's standing is checked here.
      await refuseDuringSpendLimit({ fleet });
      const now = new Date();
      const limits = await readTenantLimits({ fleet, tenant, now });
      // The tenant's policy as it stands now, against what the run runs with: a model since taken
      // off its allow-list, more turns than it may now take, or an admin-only option asked by a
      // key without the admin scope are refused as they would be for a new run.
      admitRunLimits({
        policy: limits.policy,
        auth: authOf(request),
        requested: { model: run.model, provider: run.provider, maxTurns: run.maxTurns, options: run.options },
        fleetModel: fleet.config.BUILDFLEET_MODEL,
        fleetProvider: fleet.config.BUILDFLEET_PROVIDER,
      });
      admitRunBudget({ limits, auth: authOf(request), now, requested: {} });
      await admitRun({ fleet, tenant, runId: run.id, maxActiveRuns: limits.policy.maxConcurrentRuns });
      let outcome: ResumeOutcome;
      try {
        outcome = await resumeRun(fleet, run.id);
      } catch (error) {
        await releaseIfEnded(fleet, tenant, run.id);
        throw error;
      }
      if (outcome.kind !== 'resumed') {
        // A concurrent resume that won holds the same slot (the run's id): only a run still ended
        // gives it back.
        if (outcome.kind !== 'not_failed' || isTerminal(outcome.status)) await releaseRunAdmission({ fleet, tenant, runId: run.id }).catch(() => undefined);
        throw refusalOf(outcome);
      }
      reply.code(202);
      return { id: run.id, status: 'running' };
    },
  });
}

/** After a failure of the resume itself: the slot goes back only if the run did not reopen. */
async function releaseIfEnded(fleet: FleetContext, tenant: string, runId: string): Promise<void> {
  const [reading] = await fleet.store.runStatuses([runId]).catch(() => []);
  if (reading?.state === 'found' && !isTerminal(reading.value)) return;
  await releaseRunAdmission({ fleet, tenant, runId }).catch(() => undefined);
}
