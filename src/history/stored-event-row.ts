// An `events` row as read back from PostgreSQL, decoded and validated into the archived event
// (stream id, step, name, time, its other fields). node-postgres returns timestamptz as a Date.
import { z } from 'zod';
import { archivedEventSchema, type ArchivedEvent } from './run-archive.js';
import { StoredHistoryRowInvalid } from './history-errors.js';

const storedEventRowSchema = z.object({
  stream_id: archivedEventSchema.shape.streamId,
  step: z.int(),
  event: archivedEventSchema.shape.event,
  at: z.date().transform((date) => date.toISOString()),
  data: z.record(z.string(), z.unknown()),
});

/** The columns decodeEventRow reads, for SELECT lists. */
export const EVENT_ROW_COLUMNS = Object.keys(storedEventRowSchema.shape).join(', ');

/** Decodes one `events` row of run `runId`; throws StoredHistoryRowInvalid naming the column. */
export function decodeEventRow(runId: string, row: Record<string, unknown>): ArchivedEvent {
  const parsed = storedEventRowSchema.safeParse(row);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StoredHistoryRowInvalid(
      'events',
      `${runId}/${String(row.stream_id ?? '(unknown)')}`,
      String(issue?.path[0] ?? '(row)'),
      issue?.message ?? 'invalid',
    );
  }
  const stored = parsed.data;
  return { streamId: stored.stream_id, step: stored.step, event: stored.event, at: stored.at, data: stored.data };
}
