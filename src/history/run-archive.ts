// One finished run's whole record as the history store archives it: what the run engine holds of
// the run when it ends (src/engine/run-types.ts RunRecord; the turn hashes' usage, cost and
// response; the tool ledger and trail; the event stream; the transcript). Validated when handed to
// archiveRun, like any boundary: a malformed archive is refused before a row is written.
import { z } from 'zod';
import { PHASES } from '../domain/profile.js';
import { TERMINAL_STATUSES } from '../domain/run-outcomes.js';
import { runBudgetSchema } from '../domain/run-budget.js';
import { usageByClassSchema } from '../domain/usage.js';

const isoTime = z.iso.datetime({ offset: true });
const count = z.int().nonnegative();
const durationMs = count.nullable();

/** The run itself (RunRecord's lasting fields: not the turn counters, trace carrier or question). */
export const archivedRunSchema = z.object({
  id: z.string().min(1),
  tenant: z.string().min(1),
  // Only a run that ended is archived: its record no longer changes.
  status: z.enum(TERMINAL_STATUSES),
  /** RunRecord.error, split: `code` (a RUN_ERROR_CODES key) and its message. */
  errorCode: z.string().nullable(),
  errorMessage: z.string().nullable(),
  model: z.string().min(1),
  prompt: z.string(),
  phase: z.enum(PHASES),
  /** RunRecord.turn: the model turns the run took. */
  turns: count,
  usage: usageByClassSchema,
  costMicroUsd: count,
  budget: runBudgetSchema.nullable(),
  result: z.string().nullable(),
  latestDeploy: z.string().nullable(),
  liveDeploy: z.string().nullable(),
  traceId: z.string().nullable(),
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
  modelDurationMs: durationMs,
  turnDurationMs: durationMs,
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
export const archivedEventSchema = z.object({
  streamId: z.string().regex(/^\d+-\d+$/, 'a Redis stream id (ms-seq)'),
  step: z.int(),
  event: z.string().min(1),
  at: isoTime,
  data: z.record(z.string(), z.unknown()),
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
    unique(archive.turns.map((turn) => turn.step), 'turns');
    unique(archive.toolCalls.map((call) => call.toolUseId), 'toolCalls');
    unique(archive.events.map((event) => event.streamId), 'events');
  });
export type RunArchive = z.infer<typeof runArchiveSchema>;
