// A run's payloads (issue #18): GET /v1/runs/:id/turns, /tool-calls, /transcript, /files and
// /files/*. Tenant-scoped like GET /v1/runs/:id (another tenant's run answers run_not_found), except
// that an admin key reads any tenant's run. Read from Redis while it holds the run, else from run
// history (src/api/run-payloads.ts).
import type { FastifyRequest } from 'fastify';
import type { FleetContext } from '../../fleet/fleet-context.js';
import { runParamsSchema } from '../api-schemas.js';
import { defineRoute } from '../define-route.js';
import { RunReader } from '../run-reader.js';
import { RunPayloads } from '../run-payloads.js';
import {
  fileListingSchema,
  filesQuerySchema,
  payloadPageQuerySchema,
  runFileParamsSchema,
  runFileSchema,
  toolCallPageSchema,
  transcriptPageSchema,
  turnPageSchema,
} from '../run-payload-schemas.js';
import { runTenantScopeOf } from '../tenant-of.js';

const READ_ERRORS = ['run_not_found', 'history_unavailable'] as const;
const AFTER_RETENTION =
  'A finished run answers the same once its Redis keys have expired (`BUILDFLEET_RUN_RETENTION_SECONDS` after it was archived): from run history.';
const SCOPE = 'Another tenant’s run answers `run_not_found`; a key with the `admin` scope reads every tenant’s runs. Needs the `runs:read` scope.';

export function runPayloadRoutes({ fleet }: { fleet: FleetContext }) {
  const runs = new RunReader(fleet);
  const payloads = new RunPayloads(fleet);
  const find = (request: FastifyRequest<{ Params: { id: string } }>) => runs.requireRun({ runId: request.params.id, tenant: runTenantScopeOf(request) });

  const turns = defineRoute({
    method: 'GET',
    url: '/v1/runs/:id/turns',
    operationId: 'listRunTurns',
    summary: 'List a run’s model turns',
    description:
      `Each model turn that answered, in step order: a summary of its request (phase, the tools offered, ` +
      `tool_choice, max_tokens, the attempt that answered, model, provider request id) and of its ` +
      `answer (stop reason, tokens by class, cost, the model’s text), with the model call’s and the ` +
      `turn’s durations. The tools offered, the durations and the text are recorded since issue #18; ` +
      `older turns show null there. Paged by step: \`after\` + \`limit\`. ${AFTER_RETENTION} ${SCOPE}`,
    tags: ['runs'],
    access: 'runs:read',
    params: runParamsSchema,
    query: payloadPageQuerySchema,
    responses: { 200: { description: 'A page of turns', schema: turnPageSchema } },
    errors: ['invalid_query', ...READ_ERRORS],
    async handler(request) {
      return payloads.turns({ found: await find(request), page: request.query });
    },
  });

  const toolCalls = defineRoute({
    method: 'GET',
    url: '/v1/runs/:id/tool-calls',
    operationId: 'listRunToolCalls',
    summary: 'List a run’s tool calls',
    description:
      `Each tool call the model made, in transcript order: its input, the result the model ` +
      `received and the tool’s output, status and error code, the output contract’s verdict ` +
      `and reason (docs/tool-outputs.md), whether the result was wrapped as untrusted data, ` +
      `the injection patterns flagged in it, the tool job’s attempt and duration. Secrets ` +
      `are redacted. Paged by \`position\`: \`after\` + \`limit\`. ${AFTER_RETENTION} ${SCOPE}`,
    tags: ['runs'],
    access: 'runs:read',
    params: runParamsSchema,
    query: payloadPageQuerySchema,
    responses: { 200: { description: 'A page of tool calls', schema: toolCallPageSchema } },
    errors: ['invalid_query', ...READ_ERRORS],
    async handler(request) {
      return payloads.toolCalls({ found: await find(request), page: request.query });
    },
  });

  const transcript = defineRoute({
    method: 'GET',
    url: '/v1/runs/:id/transcript',
    operationId: 'getRunTranscript',
    summary: 'Read a run’s transcript',
    description:
      `The messages of the run as the model was sent them and answered: the prompt, each ` +
      `answer (text, thinking, tool_use blocks) and each message of tool results. Secrets ` +
      `are redacted. Paged by \`index\`: \`after\` + \`limit\`. ${AFTER_RETENTION} ${SCOPE}`,
    tags: ['runs'],
    access: 'runs:read',
    params: runParamsSchema,
    query: payloadPageQuerySchema,
    responses: { 200: { description: 'A page of messages', schema: transcriptPageSchema } },
    errors: ['invalid_query', ...READ_ERRORS],
    async handler(request) {
      return payloads.transcript({ found: await find(request), page: request.query });
    },
  });

  const files = defineRoute({
    method: 'GET',
    url: '/v1/runs/:id/files',
    operationId: 'listRunFiles',
    summary: 'List a run’s workspace files',
    description:
      `The workspace’s files with their sizes, sorted by path, \`limit\` at a time (\`after\`: ` +
      `the previous page’s \`nextAfter\`). While Redis holds the run, its live workspace ` +
      `(\`source: workspace\`); after, the listing archived when it ended (\`source: archive\`). ${SCOPE}`,
    tags: ['runs'],
    access: 'runs:read',
    params: runParamsSchema,
    query: filesQuerySchema,
    responses: { 200: { description: 'A page of files', schema: fileListingSchema } },
    errors: ['invalid_query', ...READ_ERRORS],
    async handler(request) {
      return payloads.files({ found: await find(request), after: request.query.after, limit: request.query.limit });
    },
  });

  const file = defineRoute({
    method: 'GET',
    url: '/v1/runs/:id/files/*',
    operationId: 'getRunFile',
    summary: 'Read one workspace file',
    description:
      `One file of the run’s workspace, as JSON (text, or a \`data:\` URL for a binary file), ` +
      `secrets redacted. The workspace is not archived: once Redis no longer holds the run ` +
      `(\`BUILDFLEET_RUN_RETENTION_SECONDS\` after it was archived), the file is answered as ` +
      `the run’s latest deployment holds it on the site store (\`source: deployment\`, with ` +
      `its \`deployId\`), and a file that deployment lacks answers \`run_file_not_found\`. ${SCOPE}`,
    tags: ['runs'],
    access: 'runs:read',
    params: runFileParamsSchema,
    responses: { 200: { description: 'The file', schema: runFileSchema } },
    errors: ['run_file_not_found', ...READ_ERRORS],
    async handler(request) {
      return payloads.file({ found: await find(request), wildcard: request.params['*'] });
    },
  });

  return { turns, toolCalls, transcript, files, file };
}
