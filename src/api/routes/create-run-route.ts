// POST /v1/runs: starts a build run, once per Idempotency-Key, within the tenant's limits.
import type { FleetContext } from '../../fleet/fleet-context.js';
import { createRunBodySchema, createRunHeadersSchema, runAcceptedSchema, type RunAccepted } from '../api-schemas.js';
import { defineRoute } from '../define-route.js';
import { START_RUN_ERRORS, startRunFromBody } from '../start-run-from-body.js';

export function createRunRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'POST',
    url: '/v1/runs',
    operationId: 'createRun',
    summary: 'Start a build run',
    description:
      'Creates a run of the caller’s tenant and enqueues its first model turn. With an `Idempotency-Key`, ' +
      'retrying the same body within 24 h returns the same run (202, same id) and concurrent identical ' +
      'requests create exactly one run; the same key with a different body is answered 422. A replay does ' +
      'not count against the limits and is not checked against the model capability table again. Limits ' +
      'per tenant: `BUILDFLEET_RATE_LIMIT_PER_MINUTE` creations per 60 s (429 `rate_limited` with ' +
      '`retry-after`), its policy’s `maxConcurrentRuns` runs not yet ended (fleet default ' +
      '`BUILDFLEET_MAX_CONCURRENT_RUNS`; 429 `too_many_active_runs`), prompts of at most ' +
      '`BUILDFLEET_MAX_PROMPT_CHARS` characters (400 `prompt_too_large`). The tenant’s policy ' +
      '(docs/tenants.md, `GET /v1/spend`) also bounds `maxTurns` (default and maximum its `maxTurns`, ' +
      'fleet default `BUILDFLEET_MAX_TURNS`; above it 400 `max_turns_above_tenant_maximum`, refused rather ' +
      'than clamped; admin keys may ask for more) and the model (not in its `allowedModels`: 403 ' +
      '`model_not_allowed`; a run naming none gets `BUILDFLEET_MODEL` when allowed, else the first allowed ' +
      'model). `options.toolLayout` and `options.textRecovery` are experiment-only: 403 ' +
      '`run_option_requires_admin` without the `admin` scope. The model must be in the capability table ' +
      '(400 `unknown_model`); `thinking` needs a model that supports it (400 `thinking_not_supported`) ' +
      'and a budget below its maximum output (400 `thinking_budget_too_large`); max_tokens is raised to ' +
      'fit the budget. While the model account’s spend limit is reached, new runs are refused (503 ' +
      '`model_spend_limit_reached`, see `GET /v1/admin/spend-limit`). Budgets (docs/costs.md): ' +
      '`options.budgetUsd` and `options.tokenBudget` default to the tenant’s policy and may not exceed ' +
      'its maximums (400 `budget_above_tenant_maximum`; keys with the `admin` scope may); the USD budget ' +
      'is lowered to what the tenant may still spend this UTC day and month; each model call is checked ' +
      'against them before it is made, and a run that could cross one ends `budget_exceeded`. A tenant ' +
      'whose spend this UTC day or month has reached its limit gets no new run (429 ' +
      '`tenant_spend_limit_reached` with `retry-after` until the period resets; `GET /v1/spend`). ' +
      '`webhook.url` (docs/webhooks.md) must be https and resolve to public addresses only (400 ' +
      '`webhook_url_invalid`, 422 `webhook_url_blocked`; checked again at every delivery) and needs ' +
      '`BUILDFLEET_WEBHOOK_SECRET` on the fleet (422 `webhooks_not_configured`). Needs the `runs:write` scope.',
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
    errors: ['invalid_body', 'invalid_header', 'unsupported_media_type', 'body_too_large', ...START_RUN_ERRORS],
    async handler(request, reply): Promise<RunAccepted> {
      const { run, replayed } = await startRunFromBody({ fleet, request, body: request.body });
      reply.code(202).header('location', `/v1/runs/${run.id}`);
      if (replayed) reply.header('idempotent-replayed', 'true');
      return { id: run.id, status: run.status };
    },
  });
}
