// POST /v1/runs/:id/rerun: a new run with the input of another (from Redis or from history),
// optionally edited, linked to it by `rerunOf` — checked, admitted and deduplicated as POST /v1/runs.
import type { FleetContext } from '../../fleet/fleet-context.js';
import { apiErrors } from '../api-errors.js';
import {
  createRunBodySchema,
  createRunHeadersSchema,
  rerunRunBodySchema,
  runAcceptedSchema,
  runParamsSchema,
  type CreateRunBody,
  type RerunRunBody,
  type RunAccepted,
} from '../api-schemas.js';
import { defineRoute } from '../define-route.js';
import { RunReader, type FoundRun } from '../run-reader.js';
import { formatZodIssues } from '../../domain/format-zod-issues.js';
import { START_RUN_ERRORS, startRunFromBody } from '../start-run-from-body.js';
import { runTenantScopeOf } from '../tenant-of.js';
import { assertNever } from '../../domain/assert-never.js';

/**
 * The original's input as a POST /v1/runs body, with the edits on top. From Redis: prompt, model,
 * provider, maxTurns, options and thinking as submitted. From history, which keeps no options nor maxTurns:
 * prompt, model and thinking; the rest takes the tenant's defaults unless the edits name them.
 */
function rerunBody(found: FoundRun, edits: RerunRunBody): CreateRunBody {
  const run = found.run;
  // The original's thinking as the request that gives it again — on the same model only: a rerun
  // on another model (a new conversation; its thinking blocks could not be carried anyway) takes
  // that model's own defaults unless the edits name a thinking choice (docs/models.md).
  const thinking = edits.model === undefined || edits.model === run.model ? thinkingRequestOf(run) : undefined;
  // The original's input as its agent accepted it; a run from before inputs were kept has its first
  // message, which was the builder's whole input (`prompt`).
  const given = run.input === null ? { prompt: run.prompt } : { input: run.input };
  const original =
    found.source === 'redis'
      ? {
          agent: run.agent,
          ...given,
          model: run.model,
          provider: found.run.provider,
          maxTurns: found.run.maxTurns,
          options: found.run.options,
          thinking,
        }
      : { agent: run.agent, ...given, model: run.model, thinking };
  // An edited `prompt` or `input` replaces the original's input, whichever way it was given (a
  // prompt stands for `{prompt}`); both edited is the caller's `invalid_body`, as on POST /v1/runs.
  const replacesInput = edits.input !== undefined || edits.prompt !== undefined;
  const merged = { ...original, ...(replacesInput ? { prompt: undefined, input: undefined } : {}), ...edits };
  // What the original ran with was valid then; the edited whole is checked again as a new body.
  const parsed = createRunBodySchema.safeParse(Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined)));
  if (!parsed.success)
    throw apiErrors.invalidBody(`The rerun's input is not a valid run: ${formatZodIssues({ issues: parsed.error.issues, root: 'body', limit: 5 })}`);
  return parsed.data;
}

/** The `thinking` body that decides the same settings on the same model (resolve-run-model-settings.ts). */
function thinkingRequestOf(run: Pick<FoundRun['run'], 'thinking' | 'thinkingBudgetTokens' | 'effort'>): CreateRunBody['thinking'] {
  const effort = run.effort === null ? {} : { effort: run.effort };
  switch (run.thinking) {
    case 'manual':
      return run.thinkingBudgetTokens === null ? { enabled: true, ...effort } : { budgetTokens: run.thinkingBudgetTokens, ...effort };
    case 'adaptive':
      return { enabled: true, ...effort };
    case 'off':
    case 'between_tools':
      return { enabled: false, ...effort };
    default:
      return assertNever(run.thinking);
  }
}

export function rerunRunRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'POST',
    url: '/v1/runs/:id/rerun',
    operationId: 'rerunRun',
    summary: 'Start a new run with the input of another',
    description:
      'Creates a new run of run `{id}`’s tenant (the caller’s own, but for an admin key’s rerun of another ' +
      'tenant’s run) with the input of run `{id}` — a run Redis holds (any status) or one only history ' +
      'holds — and the fields of the JSON body on top (`{}` for none; each optional, as in ' +
      '`POST /v1/runs`: `prompt`, `model`, `provider`, `maxTurns`, `options`, `thinking`; a field given ' +
      'replaces the original’s; `prompt` or `input` replaces the original’s input). From Redis the original’s agent, input, model, provider, ' +
      'maxTurns, options and thinking carry over; from history only its agent, input, model and thinking (history keeps no options nor ' +
      'maxTurns: those take the tenant’s defaults). The new run’s view names the original in `rerunOf`; ' +
      'the original is not changed. Everything else is as `POST /v1/runs`: the same checks and limits, the ' +
      'same errors, and an `Idempotency-Key` (its replay must name the same original and body). Another ' +
      'tenant’s run is 404 `run_not_found`, except to a key with the `admin` scope, which reruns any ' +
      'tenant’s run: the new run belongs to the original’s tenant and is admitted against that tenant’s ' +
      'limits (with the admin key’s own allowances), while its `Idempotency-Key` is scoped by the caller’s tenant. Needs the `runs:write` scope.',
    tags: ['runs'],
    access: 'runs:write',
    params: runParamsSchema,
    body: rerunRunBodySchema,
    headers: createRunHeadersSchema,
    responses: {
      202: {
        description: 'The new run was created (or, with a replayed Idempotency-Key, found)',
        schema: runAcceptedSchema,
        headers: {
          location: { description: 'Path of the new run: /v1/runs/{id}' },
          'idempotent-replayed': { description: '`true` when an earlier request with this Idempotency-Key created the run' },
        },
      },
    },
    errors: ['run_not_found', 'invalid_body', 'invalid_header', 'unsupported_media_type', 'body_too_large', 'history_unavailable', ...START_RUN_ERRORS],
    async handler(request, reply): Promise<RunAccepted> {
      const found = await new RunReader(fleet).requireRun({ runId: request.params.id, tenant: runTenantScopeOf(request) });
      const edits = request.body;
      const body = rerunBody(found, edits);
      // The new run is the original's tenant's, also when an admin key of another tenant asks for
      // it: it repeats that tenant's work, so it counts and spends against that tenant and shows in
      // its listing beside the original, as a rerun by the tenant itself would.
      const { run, replayed } = await startRunFromBody({
        fleet,
        request,
        body,
        tenant: found.run.tenant,
        rerunOf: found.run.id,
        idempotencyBody: { rerunOf: found.run.id, edits },
      });
      reply.code(202).header('location', `/v1/runs/${run.id}`);
      if (replayed) reply.header('idempotent-replayed', 'true');
      return { id: run.id, status: run.status };
    },
  });
}
