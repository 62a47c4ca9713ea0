// The zod schemas of every request part and response body the API has. Fastify validates with
// them (zod-route-compilers.ts) and the OpenAPI document is generated from them
// (openapi-transform.ts), so the docs cannot drift from what the server accepts.
import { z } from 'zod';
import { AGENT_NAME, PHASE_NAME } from '../domain/profile.js';
import { isScenarioName, SCENARIO_NAMES } from '../domain/scenario-names.js';
import {
  questionSchema,
  RUN_STATUSES,
  runErrorSchema,
  runOptionsSchema,
  runThinkingSchema,
  runWebhookSchema,
  todoState,
  usageSchema,
} from '../engine/index.js';
import { RUN_BUDGET_SOURCES } from '../domain/run-budget.js';
import { MAX_RUN_TURNS } from '../domain/tenant-policy.js';
import { providerNameSchema } from '../domain/provider-declarations.js';
import { EFFORT_LEVELS, type EffortLevel } from '../domain/model-catalog.js';
import { RUN_THINKING_MODES, type RunThinkingMode } from '../domain/resolve-run-model-settings.js';
import { TENANT_PATTERN } from '../domain/tenant-id.js';
import { RUN_EVENT_NAMES } from '../domain/run-events.js';
import { RUN_ID_PATTERN } from '../domain/ids.js';
import { apiErrors } from './api-errors.js';
import { resourceParams } from './zod-route-compilers.js';

export const STREAM_ID_PATTERN = /^\d{1,20}-\d{1,20}$/;

export const runIdSchema = z.string().regex(RUN_ID_PATTERN).describe('Run id: `run_` followed by 8–64 letters and digits');

export const runParamsSchema = resourceParams(z.object({ id: runIdSchema }), apiErrors.runNotFound);

const createRunFieldsSchema = z
  .strictObject({
    // The length limit is BUILDFLEET_MAX_PROMPT_CHARS, checked by the route (prompt_too_large);
    // the 256 KiB body limit bounds it before that.
    prompt: z
      .string()
      .min(1)
      .optional()
      .describe(
        'What to build, in plain language; at most BUILDFLEET_MAX_PROMPT_CHARS characters (default 20,000). ' +
          'Shorthand for `input: {"prompt": …}`; give `prompt` or `input`, not both',
      ),
    agent: z
      .string()
      .regex(AGENT_NAME)
      .optional()
      .describe('The agent to run (`GET /v1/agents`); default `site-builder`. An agent the fleet does not load is refused (`unknown_agent`)'),
    input: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("The run's input, checked against the agent's input schema (`agent_input_invalid`); the site builder's is `{\"prompt\": string}`"),
    model: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe(
        'Model id; defaults to BUILDFLEET_MODEL (or the first of the tenant’s `allowedModels` ' +
          'when that is not among them). Unknown models are refused (`unknown_model`) unless the ' +
          'operator allows them; models outside the tenant’s `allowedModels` too (`model_not_allowed`)',
      ),
    provider: providerNameSchema
      .optional()
      .describe(
        'Model provider (docs/providers.md): `anthropic` or a name BUILDFLEET_PROVIDERS ' +
          'declares; defaults to BUILDFLEET_PROVIDER (or the first of the tenant’s ' +
          '`allowedProviders` when that is not among them). Unknown names are refused ' +
          '(`unknown_provider`), providers outside the tenant’s `allowedProviders` too (`provider_not_allowed`)',
      ),
    maxTurns: z
      .int()
      .min(1)
      .max(MAX_RUN_TURNS)
      .optional()
      .describe(
        'Model turns before the run stops; defaults to, and may not exceed, the tenant’s ' +
          '`maxTurns` (fleet default BUILDFLEET_MAX_TURNS; `max_turns_above_tenant_maximum`)',
      ),
    options: runOptionsSchema.optional(),
    thinking: runThinkingSchema.optional(),
    webhook: runWebhookSchema
      .describe(
        'Where the fleet posts a signed JSON payload when the run ends (`run.ended`) or waits for ' +
          'input (`run.waiting_for_input`): an https URL whose host resolves to public addresses ' +
          'only (`webhook_url_invalid`, `webhook_url_blocked`); needs `BUILDFLEET_WEBHOOK_SECRET` ' +
          'on the fleet (`webhooks_not_configured`). Payload, signature and retries: docs/webhooks.md',
      )
      .optional(),
  })
  .describe('A new build run');

/** The body of POST /v1/runs: its fields, with the run's input in `prompt` or `input` — one of the
 * two, named in the error when neither or both are given (the agent then checks the input). */
export const createRunBodySchema = createRunFieldsSchema.superRefine((body, context) => {
  // A scenario the simulator does not have would be queued and fail at the run's first call.
  const scenario = body.options?.scenario;
  if (scenario !== undefined && !isScenarioName(scenario)) {
    context.addIssue({ code: 'custom', path: ['options', 'scenario'], message: `not a simulator scenario; the scenarios are ${SCENARIO_NAMES.join(', ')}` });
  }
  if ((body.prompt === undefined) === (body.input === undefined)) {
    context.addIssue({
      code: 'custom',
      path: [body.prompt === undefined ? 'prompt' : 'input'],
      message: body.prompt === undefined ? 'Required: the prompt (or the agent’s `input`)' : 'Give `prompt` or `input`, not both',
    });
  }
});
export type CreateRunBody = z.infer<typeof createRunBodySchema>;

export const rerunRunBodySchema = createRunFieldsSchema
  .partial()
  .describe('Fields of the new run that differ from the original’s (each as in `POST /v1/runs`); `{}` reruns the input as it was');
export type RerunRunBody = z.infer<typeof rerunRunBodySchema>;

export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_.:-]{1,200}$/;
export const createRunHeadersSchema = z.looseObject({
  'idempotency-key': z
    .string()
    .regex(IDEMPOTENCY_KEY_PATTERN, 'must be 1-200 characters of A-Z a-z 0-9 _ . : -')
    .optional()
    .describe('Makes retries safe: the same key with the same body within 24 h returns the same run'),
});

export const runAcceptedSchema = z.object({ id: runIdSchema, status: z.enum(RUN_STATUSES) }).describe('The run and its status when the request was accepted');
export type RunAccepted = z.infer<typeof runAcceptedSchema>;

const deploymentLinkSchema = z.object({
  id: z.string(),
  url: z.string().describe('Absolute URL of the site, on the sites origin (BUILDFLEET_SITES_PUBLIC_URL)'),
});

const budgetAmountSchema = (unit: string) =>
  z.object({
    limit: z.number().min(0).describe(`The budget, in ${unit}`),
    spent: z.number().min(0).describe(`What the run has used of it, in ${unit}`),
    remaining: z.number().min(0).describe(`What is left (never below 0), in ${unit}; the run stops before a call whose worst case is larger`),
  });

const runBudgetViewSchema = z
  .object({
    usd: budgetAmountSchema('USD')
      .extend({
        setBy: z
          .enum(RUN_BUDGET_SOURCES)
          .describe(
            '`run`: the run’s `options.budgetUsd` or its tenant’s default; `tenant_daily_spend_limit` / ' +
              '`tenant_monthly_spend_limit`: lowered at creation to what the tenant could still spend that UTC day / month',
          ),
      })
      .nullable()
      .describe('The USD budget; null when the run has none'),
    tokens: budgetAmountSchema('tokens (every class)').nullable().describe('The token budget; null when the run has none'),
  })
  .describe('The run’s budgets, checked before every model call against its worst case (docs/costs.md, Budgets)');

export const runViewSchema = z
  .object({
    id: runIdSchema,
    status: z.enum(RUN_STATUSES),
    agent: z.string().describe('The agent the run is for (GET /v1/agents; docs/agents.md)'),
    phase: z
      .string()
      .regex(PHASE_NAME)
      .describe(
        "A phase of the run's agent (the site builder's: planning, building or verifying); a run stays in its phase once the finish gate passed " +
          '(its summary turn) (docs/run-states.md, Phases)',
      ),
    turn: z.int(),
    model: z.string().describe('The model every call of the run uses'),
    provider: z.string().describe('The model provider every call of the run goes through (docs/providers.md)'),
    maxTokens: z.int().describe('max_tokens of the next call (raised after a truncation, up to the model maximum)'),
    thinking: z
      .enum(RUN_THINKING_MODES as [RunThinkingMode, ...RunThinkingMode[]])
      .describe(
        'How every call of the run thinks, decided at submit from `thinking` and the ' +
          'model’s capabilities (docs/models.md): off, manual (a budget), adaptive, or ' +
          'between_tools (no up-front thinking, progress updates between tool calls only)',
      ),
    thinkingBudgetTokens: z.int().nullable().describe('Manual thinking budget of every call; null unless `thinking` is manual'),
    effort: z
      .enum(EFFORT_LEVELS as [EffortLevel, ...EffortLevel[]])
      .nullable()
      .describe('`output_config.effort` of every call; null when none is sent (the model’s default applies)'),
    thinkingDisplay: z
      .enum(['summarized', 'omitted', 'updates'])
      .nullable()
      .describe(
        'The thinking display: `updates` where the model offers it (reasoning hidden, text between ' +
          'tool calls readable), else the model’s default; null when the run does not think up front',
      ),
    todos: z.array(todoState),
    files: z.array(z.object({ path: z.string(), bytes: z.int() })).describe('The workspace as it is now'),
    deployment: z.object({
      latest: deploymentLinkSchema.nullable().describe('The newest deployment (an immutable preview)'),
      live: deploymentLinkSchema.nullable().describe('The published deployment, served on the sites origin at /sites/{id}/'),
    }),
    usage: usageSchema.describe('Tokens the run’s model calls used, by billing class (the classes add up to every input and output token)'),
    cacheHitRatio: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .describe('Prompt-cache reads over all input tokens (uncached + cache writes + cache reads), 0–1; null before the first answer'),
    costUsd: z
      .number()
      .min(0)
      .describe('What the run’s model calls cost so far, in USD: the price table × usage, each answer rounded to a micro-dollar (docs/costs.md)'),
    budget: runBudgetViewSchema,
    result: z.string().nullable().describe('The agent’s final summary once the run succeeded'),
    error: runErrorSchema.nullable(),
    question: questionSchema.nullable().describe('The open ask_user question, when status is waiting_for_input'),
    traceId: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    rerunOf: runIdSchema.nullable().describe('The run this run reruns (`POST /v1/runs/{id}/rerun`); null for a run submitted with `POST /v1/runs`'),
  })
  .describe('A run');
export type RunView = z.infer<typeof runViewSchema>;

export const listRunsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Runs per page, 1–100 (default 20)'),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,200}$/, 'must be a nextCursor from an earlier page')
    .optional()
    .describe('The `nextCursor` of the previous page'),
  status: z.enum(RUN_STATUSES).optional().describe('Only runs in this status'),
  from: z.iso
    .datetime({ offset: true })
    .optional()
    .describe('Only runs created at or after this time (ISO 8601, e.g. `2026-03-01T00:00:00Z`; compared to the millisecond)'),
  to: z.iso.datetime({ offset: true }).optional().describe('Only runs created before this time (ISO 8601; exclusive; compared to the millisecond)'),
  prompt: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('Only runs whose prompt holds every word of this text: whole words, any case, no stemming (PostgreSQL `simple` text search)'),
  tenant: z
    .string()
    .regex(TENANT_PATTERN, 'must be 1-64 letters, digits, _ and -, starting with a letter or digit')
    .optional()
    .describe('Another tenant than the caller’s (admin keys only); default: the caller’s'),
});

export const runPageSchema = z
  .object({
    runs: z.array(
      z.object({
        id: runIdSchema,
        status: z.enum(RUN_STATUSES),
        agent: z.string().describe('The agent the run is for'),
        phase: z.string(),
        turn: z.int(),
        prompt: z.string().describe('The first 200 characters of the prompt, secrets redacted (`[redacted]`)'),
        createdAt: z.string(),
        updatedAt: z.string(),
      }),
    ),
    nextCursor: z.string().nullable().describe('Pass as `cursor` to get the next page; null when there are no more runs'),
  })
  .describe('One page of the tenant’s runs, newest first: live runs and finished ones, also those only run history still holds');

const jobCountsSchema = z.record(z.string(), z.int()).describe('Jobs per BullMQ state');

const fleetQueueCountsSchema = z.object({ model: jobCountsSchema, tool: jobCountsSchema, webhook: jobCountsSchema, archive: jobCountsSchema });
export const queueCountsSchema = z
  .object({
    queues: fleetQueueCountsSchema.describe('Every shard added up'),
    shards: z
      .array(
        z.object({
          shard: z.int().min(0),
          queues: fleetQueueCountsSchema,
          workers: z
            .object({ model: z.int().min(0), tool: z.int().min(0), webhook: z.int().min(0), archive: z.int().min(0) })
            .describe('Workers connected to each queue of the shard: 0 with jobs waiting means nothing serves them'),
        }),
      )
      .describe('Each queue shard on its own (BUILDFLEET_QUEUE_SHARDS, docs/scaling.md#queue-shards)'),
  })
  .describe('Job counts of every queue of the fleet: model turns, tool calls, webhook deliveries and run archives');

const UINT64_MAX = 2n ** 64n - 1n;
/** Whether a pattern-valid id is one Redis can read after: both halves unsigned 64-bit (20 digits
 * can exceed that; found by the fuzzer as a 500), and not the largest id, which has no "after". */
function isReadableAfter(id: string): boolean {
  const [milliseconds, sequence] = id.split('-').map((part) => BigInt(part));
  if (milliseconds === undefined || sequence === undefined) return false;
  return milliseconds <= UINT64_MAX && sequence <= UINT64_MAX && !(milliseconds === UINT64_MAX && sequence === UINT64_MAX);
}

const streamIdSchema = z
  .string()
  .regex(STREAM_ID_PATTERN, 'must be an event id like 1700000000000-0')
  // zod runs this even after the regex failed, so it must not assume digits (BigInt would throw).
  .refine((id) => !STREAM_ID_PATTERN.test(id) || isReadableAfter(id), 'must be an event id like 1700000000000-0');

export const runEventsQuerySchema = z.object({
  after: streamIdSchema.optional().describe('Replay only events after this event id'),
});

export const runEventsHeadersSchema = z.looseObject({
  'last-event-id': streamIdSchema.optional().describe('Set by EventSource on reconnect; takes precedence over ?after='),
});

export const storedEventSchema = z
  .looseObject({
    id: z.string().describe('Event id (Redis stream id), usable as Last-Event-ID'),
    run_id: z.string(),
    step: z.number(),
    event: z.enum(RUN_EVENT_NAMES).describe('Noun-verb event name, e.g. `tool-call-end` (src/domain/run-events.ts lists each)'),
    at: z.string(),
  })
  .describe('One trace line of the run');

export const runEventsSchema = z.array(storedEventSchema).describe('The run’s events so far, oldest first');

export const runInputBodySchema = z
  .strictObject({ text: z.string().min(1).max(10_000).describe('The answer to the run’s open question') })
  .describe('An answer to the question the agent asked');

export const healthSchema = z.object({ ok: z.literal(true) }).describe('The process is up');

export const readinessFailureSchema = z
  .object({
    ok: z.literal(false).optional().describe('false; absent when the answer is `shutting_down`'),
    error: z.object({ code: z.string(), message: z.string() }),
  })
  .describe('Not ready: Redis did not answer within 1 s (`redis_unavailable`), or the server is shutting down');

export const siteParamsSchema = resourceParams(
  z.object({ runId: runIdSchema, '*': z.string().describe('File path inside the site; empty or ending in / means index.html') }),
  apiErrors.runNotFound,
);

export const siteRootParamsSchema = resourceParams(z.object({ runId: runIdSchema }), apiErrors.runNotFound);

// The deploy id is checked by the handler (DEPLOY_ID_PATTERN) so a malformed one answers
// deployment_not_found, while a malformed run id answers run_not_found like everywhere else.
const deployIdSchema = z.string().describe('Deployment id, as returned by the deploy tool (`dep_…`)');

export const deploymentParamsSchema = resourceParams(
  z.object({
    runId: runIdSchema,
    deployId: deployIdSchema,
    '*': z.string().describe('File path inside the deployment; empty or ending in / means index.html'),
  }),
  apiErrors.runNotFound,
);

export const deploymentRootParamsSchema = resourceParams(z.object({ runId: runIdSchema, deployId: deployIdSchema }), apiErrors.runNotFound);
