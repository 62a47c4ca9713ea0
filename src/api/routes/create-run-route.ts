// POST /v1/runs: starts a build run, once per Idempotency-Key, within the tenant's limits.
import type { FleetContext } from '../../fleet/fleet-context.js';
import { readTenantLimits } from '../../fleet/tenant-account.js';
import { submitRun } from '../../fleet/run-commands.js';
import { newRunId } from '../../engine/run-engine.js';
import { apiErrors } from '../api-errors.js';
import { createRunBodySchema, createRunHeadersSchema, runAcceptedSchema, type CreateRunBody, type RunAccepted } from '../api-schemas.js';
import { assertNever } from '../../domain/profile.js';
import { resolveRunModelSettings, RunModelSettingsError } from '../../domain/resolve-run-model-settings.js';
import { defineRoute } from '../define-route.js';
import { admitRun, releaseRunAdmission } from '../limits/admit-run.js';
import { refuseDuringSpendLimit } from '../limits/refuse-during-spend-limit.js';
import { submitRunIdempotently } from '../submit-run-idempotently.js';
import { authOf, tenantOf } from '../tenant-of.js';
import { admitRunBudget } from '../limits/admit-run-budget.js';
import { admitRunLimits } from '../limits/admit-run-limits.js';

/** Length in Unicode code points, so an emoji counts once, as a person would count it. */
function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length += 1;
  return length;
}

/** Throws the API error of a model or thinking choice the fleet refuses. */
function checkModelSettings(fleet: FleetContext, body: CreateRunBody, model: string | undefined): void {
  try {
    resolveRunModelSettings({ config: fleet.config, model, thinking: body.thinking });
  } catch (error) {
    if (!(error instanceof RunModelSettingsError)) throw error;
    switch (error.code) {
      case 'unknown_model':
        throw apiErrors.unknownModel(error.message);
      case 'thinking_not_supported':
        throw apiErrors.thinkingNotSupported(error.message);
      case 'thinking_budget_too_large':
        throw apiErrors.thinkingBudgetTooLarge(error.message);
      default:
        return assertNever(error.code);
    }
  }
}

export function createRunRoute({ fleet }: { fleet: FleetContext }) {
  const maxPromptChars = fleet.config.BUILDFLEET_MAX_PROMPT_CHARS;
  return defineRoute({
    method: 'POST',
    url: '/v1/runs',
    operationId: 'createRun',
    summary: 'Start a build run',
    description:
      'Creates a run of the caller’s tenant and enqueues its first model turn. With an `Idempotency-Key`, retrying the same body within 24 h returns the same run (202, same id) and concurrent identical requests create exactly one run; the same key with a different body is answered 422. A replay does not count against the limits and is not checked against the model capability table again. Limits per tenant: `BUILDFLEET_RATE_LIMIT_PER_MINUTE` creations per 60 s (429 `rate_limited` with `retry-after`), its policy’s `maxConcurrentRuns` runs not yet ended (fleet default `BUILDFLEET_MAX_CONCURRENT_RUNS`; 429 `too_many_active_runs`), prompts of at most `BUILDFLEET_MAX_PROMPT_CHARS` characters (400 `prompt_too_large`). The tenant’s policy (docs/tenants.md, `GET /v1/spend`) also bounds `maxTurns` (default and maximum its `maxTurns`, fleet default `BUILDFLEET_MAX_TURNS`; above it 400 `max_turns_above_tenant_maximum`, refused rather than clamped; admin keys may ask for more) and the model (not in its `allowedModels`: 403 `model_not_allowed`; a run naming none gets `BUILDFLEET_MODEL` when allowed, else the first allowed model). `options.toolLayout` and `options.textRecovery` are experiment-only: 403 `run_option_requires_admin` without the `admin` scope. The model must be in the capability table (400 `unknown_model`); `thinking` needs a model that supports it (400 `thinking_not_supported`) and a budget below its maximum output (400 `thinking_budget_too_large`); max_tokens is raised to fit the budget. While the model account’s spend limit is reached, new runs are refused (503 `model_spend_limit_reached`, see `GET /v1/admin/spend-limit`). Budgets (docs/costs.md): `options.budgetUsd` and `options.tokenBudget` default to the tenant’s policy and may not exceed its maximums (400 `budget_above_tenant_maximum`; keys with the `admin` scope may); the USD budget is lowered to what the tenant may still spend this UTC day and month; each model call is checked against them before it is made, and a run that could cross one ends `budget_exceeded`. A tenant whose spend this UTC day or month has reached its limit gets no new run (429 `tenant_spend_limit_reached` with `retry-after` until the period resets; `GET /v1/spend`). Needs the `runs:write` scope.',
    tags: ['runs'],
    access: 'runs:write',
    body: createRunBodySchema,
    headers: createRunHeadersSchema,
    responses: {
      202: {
        description: 'The run was created (or, with a replayed Idempotency-Key, found)',
        schema: runAcceptedSchema,
        headers: {
          location: { description: 'Path of the run: /v1/runs/{id}' },
          'idempotent-replayed': { description: '`true` when an earlier request with this Idempotency-Key created the run' },
        },
      },
    },
    errors: [
      'invalid_body',
      'invalid_header',
      'prompt_too_large',
      'unsupported_media_type',
      'body_too_large',
      'idempotency_key_conflict',
      'idempotency_key_in_progress',
      'unknown_model',
      'thinking_not_supported',
      'thinking_budget_too_large',
      'rate_limited',
      'too_many_active_runs',
      'model_spend_limit_reached',
      'tenant_spend_limit_reached',
      'budget_above_tenant_maximum',
      'max_turns_above_tenant_maximum',
      'model_not_allowed',
      'run_option_requires_admin',
    ],
    async handler(request, reply): Promise<RunAccepted> {
      const tenant = tenantOf(request);
      const body = request.body;
      const promptLength = codePointLength(body.prompt);
      if (promptLength > maxPromptChars) {
        throw apiErrors.promptTooLarge(`The prompt has ${promptLength} characters; at most ${maxPromptChars} are allowed.`);
      }
      // Only a request that really creates a run is checked and admitted (and counted): a replay
      // of an Idempotency-Key returns its run without reaching this, so a later change of the
      // capability table cannot turn the replay of a run already created into a 400.
      const submit = async () => {
        const auth = authOf(request);
        // The tenant's policy and standing, read once: run limits, budgets and the active-run cap.
        const now = new Date();
        const limits = await readTenantLimits({ fleet, tenant, now });
        const { maxTurns, model } = admitRunLimits({ policy: limits.policy, auth, requested: body, fleetModel: fleet.config.BUILDFLEET_MODEL });
        // Refused before admission, so a run the model cannot take uses no slot (submitRun checks
        // again); a refusal releases the Idempotency-Key for a corrected retry.
        checkModelSettings(fleet, body, model);
        const runId = newRunId();
        await refuseDuringSpendLimit({ fleet });
        const budget = admitRunBudget({ limits, auth, now, requested: { budgetUsd: body.options?.budgetUsd, tokenBudget: body.options?.tokenBudget } });
        await admitRun({ fleet, tenant, runId, maxActiveRuns: limits.policy.maxConcurrentRuns });
        try {
          return await submitRun(fleet, {
            tenant,
            runId,
            prompt: body.prompt,
            model,
            maxTurns,
            options: body.options,
            thinking: body.thinking,
            budget,
          });
        } catch (error) {
          // A run created whose first turn was not enqueued was ended by submitRun (enqueue_failed),
          // so neither the reaper nor a retry under the released Idempotency-Key can start it twice.
          await releaseRunAdmission({ fleet, tenant, runId }).catch(() => undefined);
          throw error;
        }
      };
      const idempotencyKey = request.headers['idempotency-key'];
      const { run, replayed } = idempotencyKey
        ? await submitRunIdempotently({ fleet, tenant, idempotencyKey, body, submit })
        : { run: await submit(), replayed: false };
      reply.code(202).header('location', `/v1/runs/${run.id}`);
      if (replayed) reply.header('idempotent-replayed', 'true');
      return { id: run.id, status: run.status };
    },
  });
}
