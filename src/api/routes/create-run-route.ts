// POST /v1/runs: starts a build run, once per Idempotency-Key.
import type { FleetContext } from '../../fleet/fleet-context.js';
import { submitRun } from '../../runs/run-commands.js';
import { createRunBodySchema, createRunHeadersSchema, runAcceptedSchema, type RunAccepted } from '../api-schemas.js';
import { defineRoute } from '../define-route.js';
import { submitRunIdempotently } from '../submit-run-idempotently.js';
import { tenantOf } from '../tenant-of.js';

export function createRunRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'POST',
    url: '/v1/runs',
    operationId: 'createRun',
    summary: 'Start a build run',
    description:
      'Creates a run and enqueues its first model turn. With an `Idempotency-Key`, retrying the same body within 24 h returns the same run (202, same id) and concurrent identical requests create exactly one run; the same key with a different body is answered 422.',
    tags: ['runs'],
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
      'unsupported_media_type',
      'body_too_large',
      'idempotency_key_conflict',
      'idempotency_key_in_progress',
    ],
    async handler(request, reply): Promise<RunAccepted> {
      const tenant = tenantOf(request);
      const body = request.body;
      const submit = () =>
        submitRun(fleet, { tenant, prompt: body.prompt, model: body.model, maxTurns: body.maxTurns, options: body.options });
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
