// One finished run's whole record as the history store archives it: what the run engine holds of
// the run when it ends (src/engine/run-types.ts RunRecord; the turn hashes' usage, cost and
// response; the tool ledger and trail; the event stream; the transcript). Validated when handed to
// archiveRun, like any boundary: a malformed archive is refused before a row is written.
import { z } from 'zod';
import { AGENT_NAME, PHASE_NAME } from '../domain/profile.js';
import { providerNameSchema } from '../domain/provider-declarations.js';
import { TERMINAL_STATUSES } from '../domain/run-outcomes.js';
import { hasRunEventKeys, RUN_EVENT_NAMES } from '../domain/run-events.js';
import { runBudgetSchema } from '../domain/run-budget.js';
import { EFFORT_LEVELS, type EffortLevel } from '../domain/model-catalog.js';
import { RUN_THINKING_MODES, type RunThinkingMode } from '../domain/resolve-run-model-settings.js';
import { usageByClassSchema } from '../domain/usage.js';
import { todoItem } from '../domain/tool-input-schemas.js';

const isoTime = z.iso.datetime({ offset: true });
const count = z.int().nonnegative();
const durationMs = count.nullable();

/** A todo of the run's plan as the run record keeps it (src/engine/run-types.ts todoState). */
export const archivedTodoSchema = todoItem.extend({ done: z.boolean() });
/** One file of the workspace listing (RunEngine.listFiles). */
export const archivedFileSchema = z.strictObject({ path: z.string().min(1), bytes: count });
/** An open ask_user question (src/engine/run-types.ts questionSchema). */
export const archivedQuestionSchema = z.strictObject({ toolUseId: z.string(), question: z.string(), turn: z.number() });
/** set_meta's title and description, which the published site's pages are served with. */
export const archivedMetaSchema = z.strictObject({ title: z.string(), description: z.string() });

/** The run itself: RunRecord's lasting fields — everything GET /v1/runs/:id shows, so a run whose
 * Redis keys are gone answers the same from history — not the turn counters or trace carrier. */
export const archivedRunSchema = z.object({
  id: z.string().min(1),
  tenant: z.string().min(1),
  // Only a run that ended is archived: its record no longer changes.
  status: z.enum(TERMINAL_STATUSES),
  /** RunRecord.error, split: `code` (a RUN_ERROR_CODES key) and its message. */
  errorCode: z.string().nullable(),
  errorMessage: z.string().nullable(),
  model: z.string().min(1),
  /** RunRecord.provider: the provider every call of the run went through (docs/providers.md). */
  provider: providerNameSchema,
  prompt: z.string(),
  /** RunRecord.agent: the agent the run was made for. */
  agent: z.string().regex(AGENT_NAME),
  phase: z.string().regex(PHASE_NAME),
  /** RunRecord.turn: the model turns the run took. */
  turns: count,
  usage: usageByClassSchema,
  costMicroUsd: count,
  budget: runBudgetSchema,
  result: z.string().nullable(),
  latestDeploy: z.string().nullable(),
  liveDeploy: z.string().nullable(),
  traceId: z.string().nullable(),
  /** max_tokens of the run's last call (raised after a truncation). */
  maxTokens: z.int().positive(),
  thinking: z.enum(RUN_THINKING_MODES as [RunThinkingMode, ...RunThinkingMode[]]),
  /** null: the run did not think with a manual budget. */
  thinkingBudgetTokens: z.int().positive().nullable(),
  effort: z.enum(EFFORT_LEVELS as [EffortLevel, ...EffortLevel[]]).nullable(),
  thinkingDisplay: z.enum(['summarized', 'omitted', 'updates']).nullable(),
  todos: z.array(archivedTodoSchema),
  /** The workspace listing when the run was archived, sorted by path. */
  files: z.array(archivedFileSchema),
  question: archivedQuestionSchema.nullable(),
  /** RunRecord.options.tokenBudget: the token budget of a record stored before budgets were. */
  optionsTokenBudget: z.int().positive().nullable(),
  meta: archivedMetaSchema.nullable(),
  /** RunRecord.rerunOf: the run this one reruns (POST /v1/runs/:id/rerun), or null. */
  rerunOf: z.string().nullable(),
  /** RunRecord.input: the agent's input, or null (a run from before inputs were kept). */
  input: z.record(z.string(), z.unknown()).nullable(),
  createdAt: isoTime,
  /** When the run ended (RunRecord.updatedAt of the terminal record: its last transition). */
  endedAt: isoTime,
});
export type ArchivedRun = z.infer<typeof archivedRunSchema>;

/** One model turn: its answer's stop reason, usage and cost (the turn hash), how long it took,
 * and a summary of the request (message count, tool count, tool_choice, max_tokens…), not the
 * request itself: the transcript holds the messages once. */
export const archivedTurnSchema = z.object({
  step: count,
  /** null: the turn's call failed and it has no answer. */
  stopReason: z.string().nullable(),
  usage: usageByClassSchema,
  costMicroUsd: count,
  modelDurationMs: count,
  turnDurationMs: count,
  request: z.record(z.string(), z.unknown()),
});
export type ArchivedTurn = z.infer<typeof archivedTurnSchema>;

/** One tool call with its ledger entry (StoredToolResult) and verdict. */
export const archivedToolCallSchema = z.object({
  step: count,
  toolUseId: z.string().min(1),
  tool: z.string().min(1),
  input: z.unknown(),
  /** The stored tool_result (content, is_error, output…); null when the call never got one. */
  result: z.unknown().nullable(),
  status: z.enum(['ok', 'error', 'unanswered']),
  errorCode: z.string().nullable(),
  durationMs: durationMs,
});
export type ArchivedToolCall = z.infer<typeof archivedToolCallSchema>;

/** One entry of the run's event stream (StoredEvent: stream id, time, event, its fields). */
export const archivedEventSchema = z
  .object({
    streamId: z.string().regex(/^\d+-\d+$/, 'a Redis stream id (ms-seq)'),
    step: z.int(),
    event: z.enum(RUN_EVENT_NAMES),
    at: isoTime,
    data: z.record(z.string(), z.unknown()),
  })
  .refine((archived) => hasRunEventKeys({ ...archived.data, event: archived.event }), {
    message: 'an event without the fields readers key on (tool_use_id, run-end status)',
    path: ['data'],
  });
export type ArchivedEvent = z.infer<typeof archivedEventSchema>;

export const runArchiveSchema = z
  .object({
    run: archivedRunSchema,
    turns: z.array(archivedTurnSchema),
    toolCalls: z.array(archivedToolCallSchema),
    /** In stream order. */
    events: z.array(archivedEventSchema),
    /** The final transcript, one Messages API message per entry. */
    messages: z.array(z.unknown()),
  })
  .superRefine((archive, context) => {
    const unique = (values: Array<string | number>, path: string) => {
      if (new Set(values).size !== values.length) context.addIssue({ code: 'custom', path: [path], message: `duplicate ${path} keys` });
    };
    unique(
      archive.turns.map((turn) => turn.step),
      'turns',
    );
    unique(
      archive.toolCalls.map((call) => call.toolUseId),
      'toolCalls',
    );
    unique(
      archive.events.map((event) => event.streamId),
      'events',
    );
  });
export type RunArchive = z.infer<typeof runArchiveSchema>;
