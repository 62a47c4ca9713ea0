// The SQL of the history listings, built apart from running it so the exact statements the store
// runs can be EXPLAINed (src/history/history-queries.test.ts shows each is served by an index).
import { z } from 'zod';
import { TERMINAL_STATUSES } from '../domain/run-outcomes.js';
import { decodeHistoryCursor } from './history-cursor.js';
import { RUN_ROW_COLUMNS } from './stored-run-row.js';

export const MAX_LIST_LIMIT = 200;

export const listRunsFilterSchema = z.object({
  /** Omitted: every tenant's runs (an admin's listing). */
  tenant: z.string().min(1).optional(),
  status: z.enum(TERMINAL_STATUSES).optional(),
  /** Created at or after (ISO). */
  from: z.iso.datetime({ offset: true }).optional(),
  /** Created before (ISO). */
  to: z.iso.datetime({ offset: true }).optional(),
  /** Words the prompt holds, all of them ('simple' text search: whole words, any case). */
  text: z.string().trim().min(1).max(200).optional(),
  limit: z.int().min(1).max(MAX_LIST_LIMIT),
  /** From the previous page's nextCursor. */
  cursor: z.string().min(1).optional(),
});
export type ListRunsFilter = z.input<typeof listRunsFilterSchema>;

export interface HistoryQuery {
  text: string;
  values: unknown[];
}

/** Runs newest first, (created_at, id) descending; one row more than the limit tells whether a
 * next page exists. Throws HistoryCursorInvalid on a cursor it did not hand out. */
export function listRunsQuery(input: ListRunsFilter): HistoryQuery {
  const filter = listRunsFilterSchema.parse(input);
  const values: unknown[] = [];
  const parameter = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const conditions: string[] = [];
  if (filter.tenant !== undefined) conditions.push(`tenant = ${parameter(filter.tenant)}`);
  if (filter.status !== undefined) conditions.push(`status = ${parameter(filter.status)}`);
  if (filter.from !== undefined) conditions.push(`created_at >= ${parameter(filter.from)}`);
  if (filter.to !== undefined) conditions.push(`created_at < ${parameter(filter.to)}`);
  // The expression must be the index's, word for word, for runs_prompt_search_idx to serve it.
  if (filter.text !== undefined) conditions.push(`to_tsvector('simple', prompt) @@ plainto_tsquery('simple', ${parameter(filter.text)})`);
  if (filter.cursor !== undefined) {
    const cursor = decodeHistoryCursor(filter.cursor);
    // A row comparison: the btree indexes ending in (created_at, id) seek straight to it.
    conditions.push(`(created_at, id) < (${parameter(cursor.createdAt)}::timestamptz, ${parameter(cursor.id)})`);
  }
  const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
  return {
    text: `SELECT ${RUN_ROW_COLUMNS} FROM runs ${where} ORDER BY created_at DESC, id DESC LIMIT ${parameter(filter.limit + 1)}`,
    values,
  };
}

const day = z.iso.date();
export const spendByDayFilterSchema = z
  .object({ tenant: z.string().min(1), from: day, to: day })
  .refine((filter) => filter.from <= filter.to, { message: 'from must not be after to', path: ['from'] });
export type SpendByDayFilter = z.input<typeof spendByDayFilterSchema>;

/** A tenant's cost per UTC day (the day each run was created), from..to inclusive, days with runs. */
export function spendByDayQuery(input: SpendByDayFilter): HistoryQuery {
  const filter = spendByDayFilterSchema.parse(input);
  return {
    // to_char: node-postgres would parse a `date` into a local-time Date, shifting the day.
    text:
      "SELECT to_char(created_day, 'YYYY-MM-DD') AS day, sum(cost_micro_usd) AS cost_micro_usd, count(*) AS runs " +
      'FROM runs WHERE tenant = $1 AND created_day BETWEEN $2::date AND $3::date GROUP BY created_day ORDER BY created_day',
    values: [filter.tenant, filter.from, filter.to],
  };
}
