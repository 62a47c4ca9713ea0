// The fleet overview's reads of run history (overview-queries.ts): four statements over the range's
// runs, each row validated as it is read back (node-postgres hands bigint and numeric as strings).
import type pg from 'pg';
import { z } from 'zod';
import { StoredHistoryRowInvalid } from './history-errors.js';
import { overviewHealthQuery, overviewKillSwitchTripsQuery, overviewLatencyQuery, overviewRunsQuery, type OverviewFilter } from './overview-queries.js';

const bucket = z.int().nonnegative();
const count = z.int().nonnegative();
/** null: no turn to take a percentile of (the whole range's row is there even for an empty range). */
const milliseconds = z.number().nonnegative().nullable();

const runsRowSchema = z.object({
  bucket,
  status: z.string().min(1),
  tenant: z.string().min(1),
  model: z.string().min(1),
  runs: count,
  cost_micro_usd: z.string().regex(/^\d+$/).transform(Number),
});
const latencyRowSchema = z.object({
  /** null: the row of the whole range. */
  bucket: bucket.nullable(),
  turns: count,
  turn_p50_ms: milliseconds,
  turn_p99_ms: milliseconds,
  model_p50_ms: milliseconds,
  model_p99_ms: milliseconds,
});
const healthRowSchema = z.object({
  bucket,
  /** null: a turn archived without the tool count of its request. */
  tool_count: count.nullable(),
  turns: count,
  turns_expecting_tool: count,
  turns_with_tool_use: count,
  json_in_text: count,
  fence_only_stops: count,
  recoveries: count,
});
const tripsRowSchema = z.object({ bucket, trips: count });

export type OverviewRunsRow = z.output<typeof runsRowSchema>;
export type OverviewLatencyRow = z.output<typeof latencyRowSchema>;
export type OverviewHealthRow = z.output<typeof healthRowSchema>;
export type OverviewTripsRow = z.output<typeof tripsRowSchema>;

export interface HistoryOverview {
  runs: OverviewRunsRow[];
  latency: OverviewLatencyRow[];
  health: OverviewHealthRow[];
  killSwitchTrips: OverviewTripsRow[];
}

function decodeRows<Schema extends z.ZodType>(schema: Schema, statement: string, rows: Array<Record<string, unknown>>): Array<z.output<Schema>> {
  return rows.map((row) => {
    const parsed = schema.safeParse(row);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    throw new StoredHistoryRowInvalid(`runs (${statement})`, String(row.bucket ?? '(range)'), String(issue?.path[0] ?? '(row)'), issue?.message ?? 'invalid');
  });
}

/** Reads the overview of one range (and tenant) from the history database, its statements at once. */
export async function readHistoryOverview({ pool, filter }: { pool: pg.Pool; filter: OverviewFilter }): Promise<HistoryOverview> {
  const run = async (query: { text: string; values: unknown[] }) => (await pool.query(query.text, query.values)).rows as Array<Record<string, unknown>>;
  const [runs, latency, health, trips] = await Promise.all([
    run(overviewRunsQuery(filter)),
    run(overviewLatencyQuery(filter)),
    run(overviewHealthQuery(filter)),
    run(overviewKillSwitchTripsQuery(filter)),
  ]);
  return {
    runs: decodeRows(runsRowSchema, 'overview runs', runs),
    latency: decodeRows(latencyRowSchema, 'overview latency', latency),
    health: decodeRows(healthRowSchema, 'overview health', health),
    killSwitchTrips: decodeRows(tripsRowSchema, 'overview kill switch trips', trips),
  };
}
