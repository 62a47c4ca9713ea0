// `turns`, `tool_calls` and `transcripts` rows as read back from PostgreSQL, decoded and validated
// into the archive's own shapes (run-archive.ts), for the API's payload reads (GET /v1/runs/:id/
// turns, /tool-calls, /transcript). node-postgres returns bigint columns as strings; they are
// checked and converted here, like stored-run-row.ts does for `runs`.
import { z } from 'zod';
import { archivedToolCallSchema, archivedTurnSchema, type ArchivedToolCall, type ArchivedTurn } from './run-archive.js';
import { StoredHistoryRowInvalid } from './history-errors.js';
import { usageColumns, usageOfRow } from './stored-run-row.js';
const durationMs = z.int().nonnegative().nullable();

const storedTurnRowSchema = z.object({
  step: z.int().nonnegative(),
  stop_reason: z.string().nullable(),
  ...usageColumns,
  model_duration_ms: z.int().nonnegative(),
  turn_duration_ms: z.int().nonnegative(),
  request: archivedTurnSchema.shape.request,
});

const storedToolCallRowSchema = z.object({
  tool_use_id: z.string().min(1),
  step: z.int().nonnegative(),
  tool: z.string().min(1),
  input: z.unknown(),
  result: z.unknown().nullable(),
  status: archivedToolCallSchema.shape.status,
  error_code: z.string().nullable(),
  duration_ms: durationMs,
});

const storedTranscriptRowSchema = z.object({ messages: z.array(z.unknown()) });

/** The columns each decoder reads, for SELECT lists. */
export const TURN_ROW_COLUMNS = Object.keys(storedTurnRowSchema.shape).join(', ');
export const TOOL_CALL_ROW_COLUMNS = Object.keys(storedToolCallRowSchema.shape).join(', ');
export const TRANSCRIPT_ROW_COLUMNS = Object.keys(storedTranscriptRowSchema.shape).join(', ');

function parseRow<Schema extends z.ZodType>(schema: Schema, table: string, key: string, row: Record<string, unknown>): z.output<Schema> {
  const parsed = schema.safeParse(row);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StoredHistoryRowInvalid(table, key, String(issue?.path[0] ?? '(row)'), issue?.message ?? 'invalid');
  }
  return parsed.data;
}

/** Decodes one `turns` row of run `runId`; throws StoredHistoryRowInvalid naming the column. */
export function decodeTurnRow(runId: string, row: Record<string, unknown>): ArchivedTurn {
  const stored = parseRow(storedTurnRowSchema, 'turns', `${runId}/${String(row.step ?? '(unknown)')}`, row);
  return {
    step: stored.step,
    stopReason: stored.stop_reason,
    usage: usageOfRow(stored),
    costMicroUsd: stored.cost_micro_usd,
    modelDurationMs: stored.model_duration_ms,
    turnDurationMs: stored.turn_duration_ms,
    request: stored.request,
  };
}

/** Decodes one `tool_calls` row of run `runId`; throws StoredHistoryRowInvalid naming the column. */
export function decodeToolCallRow(runId: string, row: Record<string, unknown>): ArchivedToolCall {
  const stored = parseRow(storedToolCallRowSchema, 'tool_calls', `${runId}/${String(row.tool_use_id ?? '(unknown)')}`, row);
  return {
    step: stored.step,
    toolUseId: stored.tool_use_id,
    tool: stored.tool,
    input: stored.input,
    result: stored.result,
    status: stored.status,
    errorCode: stored.error_code,
    durationMs: stored.duration_ms,
  };
}

/** Decodes the `transcripts` row of run `runId`: its messages, one Messages API message each. */
export function decodeTranscriptRow(runId: string, row: Record<string, unknown>): unknown[] {
  return parseRow(storedTranscriptRowSchema, 'transcripts', runId, row).messages;
}
