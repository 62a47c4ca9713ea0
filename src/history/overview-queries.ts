// The SQL of the fleet overview (GET /v1/overview): archived runs of a time range, counted per time
// bucket. Every figure is placed at its run's creation time, as spend by day counts a run on the day
// it was created, so the range is one condition on runs.created_at that the (tenant, created_at, id)
// and (created_at, id) indexes serve; a run's turns and events are reached through their primary
// keys, which start with the run id.
import { z } from 'zod';
import type { HistoryQuery } from './history-queries.js';

export const overviewFilterSchema = z
  .object({
    /** Omitted: every tenant's runs (an admin's overview). */
    tenant: z.string().min(1).optional(),
    /** The first bucket's start (ISO); the range ends `buckets × bucketSeconds` later. */
    from: z.iso.datetime({ offset: true }),
    bucketSeconds: z.int().positive(),
    buckets: z.int().min(1).max(1_000),
  })
  .readonly();
export type OverviewFilter = z.input<typeof overviewFilterSchema>;

/** The parameters of every overview statement ($1 from, $2 to, $3 bucket seconds, and $4 the tenant
 * when there is one), its condition on runs `r`, and the bucket index of a run's creation time. */
function scope(input: OverviewFilter): { values: unknown[]; where: string; bucket: (alias: string) => string } {
  const filter = overviewFilterSchema.parse(input);
  const to = new Date(Date.parse(filter.from) + filter.buckets * filter.bucketSeconds * 1000).toISOString();
  return {
    values: filter.tenant === undefined ? [filter.from, to, filter.bucketSeconds] : [filter.from, to, filter.bucketSeconds, filter.tenant],
    // Two spellings rather than `$4 IS NULL OR tenant = $4`, which would hide the tenant index from the planner.
    where: (filter.tenant === undefined ? '' : 'r.tenant = $4 AND ') + 'r.created_at >= $1::timestamptz AND r.created_at < $2::timestamptz',
    bucket: (alias) => `floor(extract(epoch from (${alias}.created_at - $1::timestamptz)) / $3)::int`,
  };
}

/** Runs and their cost per bucket, status, tenant and model. */
export function overviewRunsQuery(input: OverviewFilter): HistoryQuery {
  const { values, where, bucket } = scope(input);
  return {
    text:
      `SELECT ${bucket('r')} AS bucket, r.status, r.tenant, r.model, count(*)::int AS runs, sum(r.cost_micro_usd)::text AS cost_micro_usd ` +
      `FROM runs r WHERE ${where} GROUP BY 1, r.status, r.tenant, r.model`,
    values,
  };
}

/** p50 and p99 of turn and model-call durations per bucket, and over the whole range (bucket null). */
export function overviewLatencyQuery(input: OverviewFilter): HistoryQuery {
  const { values, where, bucket } = scope(input);
  return {
    text:
      'SELECT bucket, count(*)::int AS turns, ' +
      'percentile_cont(0.5) WITHIN GROUP (ORDER BY turn_duration_ms) AS turn_p50_ms, ' +
      'percentile_cont(0.99) WITHIN GROUP (ORDER BY turn_duration_ms) AS turn_p99_ms, ' +
      'percentile_cont(0.5) WITHIN GROUP (ORDER BY model_duration_ms) AS model_p50_ms, ' +
      'percentile_cont(0.99) WITHIN GROUP (ORDER BY model_duration_ms) AS model_p99_ms ' +
      `FROM (SELECT ${bucket('r')} AS bucket, t.turn_duration_ms, t.model_duration_ms FROM turns t JOIN runs r ON r.id = t.run_id ` +
      `WHERE ${where}) AS scoped GROUP BY GROUPING SETS ((bucket), ())`,
    values,
  };
}

/**
 * The health signals per bucket and tool count, as the metrics count them (src/fleet/fleet-metrics.ts)
 * but read from the archived turns and events: a turn expected a tool call unless its answer ended
 * the run as succeeded (`succeed` is decided only once the finish gate passed, the metric's
 * `!finishVerified`); a native tool_use is stop_reason tool_use; a turn held JSON as text when its
 * step has a `text-call-detect` event, stopped in an open fence with `fence-only-stop`, and each
 * `tool-call-recover` is one recovered call.
 */
export function overviewHealthQuery(input: OverviewFilter): HistoryQuery {
  const { values, where, bucket } = scope(input);
  const expecting = "t.request->>'decision' IS DISTINCT FROM 'succeed'";
  return {
    text:
      `WITH scoped AS (SELECT r.id, ${bucket('r')} AS bucket FROM runs r WHERE ${where}), ` +
      'signals AS (SELECT e.run_id, e.step, ' +
      "bool_or(e.event = 'text-call-detect') AS json_in_text, bool_or(e.event = 'fence-only-stop') AS fence_only_stop, " +
      "count(*) FILTER (WHERE e.event = 'tool-call-recover') AS recoveries " +
      "FROM events e JOIN scoped s ON s.id = e.run_id WHERE e.event IN ('text-call-detect', 'fence-only-stop', 'tool-call-recover') " +
      'GROUP BY e.run_id, e.step) ' +
      "SELECT s.bucket, (t.request->>'tool_count')::int AS tool_count, count(*)::int AS turns, " +
      `count(*) FILTER (WHERE ${expecting})::int AS turns_expecting_tool, ` +
      `count(*) FILTER (WHERE ${expecting} AND t.stop_reason = 'tool_use')::int AS turns_with_tool_use, ` +
      'count(*) FILTER (WHERE g.json_in_text)::int AS json_in_text, count(*) FILTER (WHERE g.fence_only_stop)::int AS fence_only_stops, ' +
      'coalesce(sum(g.recoveries), 0)::int AS recoveries ' +
      'FROM turns t JOIN scoped s ON s.id = t.run_id LEFT JOIN signals g ON g.run_id = t.run_id AND g.step = t.step ' +
      'GROUP BY s.bucket, 2',
    values,
  };
}

/** Kill switch trips (`killswitch-trip` events) of the range's runs, per bucket of the run. */
export function overviewKillSwitchTripsQuery(input: OverviewFilter): HistoryQuery {
  const { values, where, bucket } = scope(input);
  return {
    text:
      `SELECT ${bucket('r')} AS bucket, count(*)::int AS trips FROM events e JOIN runs r ON r.id = e.run_id ` +
      `WHERE ${where} AND e.event = 'killswitch-trip' GROUP BY 1`,
    values,
  };
}
