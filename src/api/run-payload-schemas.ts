// The schemas of a run's payload routes (issue #18): its turns, tool calls, transcript and
// workspace files (src/api/routes/run-payload-routes.ts). Like api-schemas.ts, Fastify validates and
// serializes with them and the OpenAPI document is generated from them.
import { TRANSCRIPT_ROLES } from '../domain/model-message.js';
import { z } from 'zod';
import { usageSchema } from '../engine/index.js';
import { apiErrors } from './api-errors.js';
import { runIdSchema } from './api-schemas.js';
import { resourceParams } from './zod-route-compilers.js';

export const MAX_PAYLOAD_PAGE = 100;

/** `after` + `limit` paging over a list with whole-number positions (a step, an index). */
export const payloadPageQuerySchema = z.object({
  after: z.coerce
    .number()
    .int()
    .min(-1)
    .default(-1)
    .describe('Answer the entries after this position: the previous page’s `nextAfter` (omit, or -1, for the first page)'),
  limit: z.coerce.number().int().min(1).max(MAX_PAYLOAD_PAGE).default(50).describe(`Entries per page, 1–${MAX_PAYLOAD_PAGE} (default 50)`),
});
export type PayloadPageQuery = z.infer<typeof payloadPageQuerySchema>;

const nextAfterSchema = z.number().int().nullable().describe('Pass as `after` for the next page; null after the last');

const nullableDuration = z.number().int().min(0).nullable();
const duration = z.number().int().min(0);

export const turnSummarySchema = z
  .object({
    step: z.number().int().min(0).describe('The turn (the events’ `step`)'),
    phase: z.string().nullable().describe('The phase the turn ran in (its `turn-start` event)'),
    toolsOffered: z.array(z.string()).describe('Names of the tools the request offered'),
    toolCount: z.number().int().min(0).nullable(),
    toolChoice: z.string().nullable().describe('`auto`, `any`, `tool` or `none`'),
    maxTokens: z.number().int().min(1).nullable().describe('max_tokens of the call'),
    thinkingBudgetTokens: z.number().int().min(1).nullable(),
    attempt: z.number().int().min(1).nullable().describe('The model job’s attempt that answered'),
    model: z.string().nullable().describe('The model that answered'),
    requestId: z.string().nullable().describe('The provider’s request id'),
    answerId: z.string().nullable().describe('The answer’s id (msg_…)'),
    stopReason: z.string().nullable(),
    decision: z.string().nullable().describe('What the turn decided (tools, finish, ask, …)'),
    dispatchedToolCalls: z.number().int().min(0),
    usage: usageSchema.describe('Tokens of the answer by class'),
    costUsd: z.number().min(0),
    modelDurationMs: duration.describe('The model call, from sending the request to the whole answer'),
    turnDurationMs: duration.describe('The answering attempt, from loading the turn to committing the answer'),
    text: z.string().nullable().describe('The model’s text in its answer (text blocks joined by a blank line; secrets redacted); null when it wrote none'),
  })
  .describe('One model turn: a summary of its request and answer');

export const turnPageSchema = z.object({ turns: z.array(turnSummarySchema), nextAfter: nextAfterSchema }).describe('A page of the run’s turns, in step order');

export const TOOL_CALL_VERDICTS = ['valid', 'degraded', 'invalid', 'not_validated'] as const;

export const toolCallViewSchema = z
  .object({
    position: z.number().int().min(0).describe('The call’s place among the run’s tool calls (transcript order): `after` pages by it'),
    step: z.number().int().min(0).describe('The turn that handled the call'),
    toolUseId: z.string(),
    tool: z.string(),
    input: z.unknown().describe('The input the model wrote (secrets redacted)'),
    status: z.enum(['ok', 'error', 'unanswered']).describe('`unanswered`: no result recorded (yet, on a live run)'),
    errorCode: z.string().nullable(),
    verdict: z
      .enum(TOOL_CALL_VERDICTS)
      .nullable()
      .describe(
        'The output contract’s verdict: `valid`; `degraded` (invalid, answered with the ' +
          'last-known-good output); `invalid` (the output failed its contract); `not_validated` ' +
          '(the call failed or was refused before it had an output); null while unanswered',
      ),
    verdictReason: z
      .string()
      .nullable()
      .describe('Why: the contract’s reason (`unexpected_content_type:text/html`) for `invalid` and `degraded`, the error code for `not_validated`'),
    untrusted: z.boolean().nullable().describe('The result reached the model inside the untrusted-data envelope (`trust="untrusted"`); null while unanswered'),
    injectionFlags: z
      .array(z.object({ patterns: z.array(z.string()), source: z.enum(['output', 'error']) }))
      .describe('Injection-like text flagged in the result (`tool-output-injection-flag` events; attributed to calls since issue #18)'),
    attempt: z
      .number()
      .int()
      .min(1)
      .nullable()
      .describe('The tool job’s last attempt (`tool-call-start`); null when it never started (refused, or failed its checks)'),
    durationMs: nullableDuration,
    result: z
      .object({
        content: z.string().describe('The tool_result the model received'),
        isError: z.boolean(),
        output: z.unknown().optional().describe('The tool’s output before wrapping (absent on errors)'),
        errorCode: z.string().optional(),
        errorReason: z.string().optional(),
      })
      .nullable()
      .describe('The ledger entry (secrets redacted); null while unanswered'),
  })
  .describe('One tool call with its result and verdict');

export const toolCallPageSchema = z
  .object({ toolCalls: z.array(toolCallViewSchema), nextAfter: nextAfterSchema })
  .describe('A page of the run’s tool calls, in transcript order');

export const transcriptMessageSchema = z
  .object({
    index: z.number().int().min(0),
    role: z
      .enum(TRANSCRIPT_ROLES)
      .describe('`system`: a mid-conversation system message (a phase change’s instructions and tool_addition / tool_removal blocks, docs/prompt-caching.md)'),
    content: z.union([z.string(), z.array(z.unknown())]).describe('Messages API content blocks (text, tool_use, tool_result, thinking…), secrets redacted'),
  })
  .describe('One message of the transcript');

export const transcriptPageSchema = z
  .object({ messages: z.array(transcriptMessageSchema), nextAfter: nextAfterSchema })
  .describe('A page of the run’s transcript: the messages sent to and answered by the model (the system prompt and tools are not stored)');

export const filesQuerySchema = z.object({
  after: z.string().max(400).optional().describe('Answer the files after this path: the previous page’s `nextAfter`'),
  limit: z.coerce.number().int().min(1).max(500).default(200).describe('Files per page, 1–500 (default 200)'),
});

export const fileListingSchema = z
  .object({
    source: z
      .enum(['workspace', 'archive'])
      .describe('`workspace`: read from Redis, the live workspace; `archive`: the listing archived when the run ended (its contents are not archived)'),
    files: z.array(z.object({ path: z.string(), bytes: z.number().int().min(0) })),
    nextAfter: z.string().nullable().describe('Pass as `after` for the next page; null after the last'),
  })
  .describe('A page of the run’s workspace files, sorted by path');

export const runFileParamsSchema = resourceParams(
  z.object({ id: runIdSchema, '*': z.string().describe('A workspace path, e.g. `index.html`, `css/site.css`') }),
  apiErrors.runNotFound,
);

export const runFileSchema = z
  .object({
    path: z.string(),
    source: z
      .enum(['workspace', 'deployment'])
      .describe(
        '`workspace`: the run’s workspace in Redis; `deployment`: once Redis no longer ' +
          'holds the run, the file as its latest deployment holds it on the site store',
      ),
    deployId: z.string().nullable().describe('The deployment read, for `deployment`'),
    bytes: z.number().int().min(0),
    content: z.string().describe('The file as stored: text, or a `data:` URL for binary files; secrets redacted'),
  })
  .describe('One workspace file');
