// POST /v1/runs/:id/input: answers the question the agent asked with ask_user.
import type { FleetContext } from '../../fleet/fleet-context.js';
import { answerQuestion } from '../../fleet/run-commands.js';
import { isTerminal } from '../../engine/index.js';
import { apiErrors } from '../api-errors.js';
import { runAcceptedSchema, runInputBodySchema, runParamsSchema, type RunAccepted } from '../api-schemas.js';
import { defineRoute } from '../define-route.js';
import { loadRun } from '../load-run.js';
import { runTenantScopeOf } from '../tenant-of.js';

export function runInputRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'POST',
    url: '/v1/runs/:id/input',
    operationId: 'answerRunQuestion',
    summary: 'Answer the run’s open question',
    description:
      'Closes the open `ask_user` question with the text as the answer; the run resumes ' +
      'on its next model turn. Another tenant’s run answers `run_not_found`; a key ' +
      'with the `admin` scope answers any tenant’s run. Needs the `runs:write` scope.',
    tags: ['runs'],
    access: 'runs:write',
    params: runParamsSchema,
    body: runInputBodySchema,
    responses: { 202: { description: 'The answer was recorded', schema: runAcceptedSchema } },
    errors: ['run_not_found', 'invalid_body', 'unsupported_media_type', 'body_too_large', 'no_open_question', 'run_already_ended', 'history_unavailable'],
    async handler(request, reply): Promise<RunAccepted> {
      const run = await loadRun({ fleet, runId: request.params.id, tenant: runTenantScopeOf(request) });
      // Checked before the question: a terminal run has no question either, and "it ended" is
      // the more useful answer.
      if (isTerminal(run.status)) throw apiErrors.runAlreadyEnded();
      const outcome = await answerQuestion(fleet, run, request.body.text);
      if (outcome === 'no_open_question') throw apiErrors.noOpenQuestion();
      if (outcome === 'run_ended') throw apiErrors.runAlreadyEnded();
      const current = await fleet.store.getRun(run.id);
      reply.code(202);
      return { id: run.id, status: current?.status ?? run.status };
    },
  });
}
