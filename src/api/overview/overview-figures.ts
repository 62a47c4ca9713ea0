// The history part of the overview (GET /v1/overview): the rows HistoryStore.overview read, laid
// out as series aligned with the range's buckets, with totals, rates and the top tenants and models.
import { TERMINAL_STATUSES, type TerminalStatus } from '../../domain/run-outcomes.js';
import { microUsdToUsd } from '../../domain/usage-cost.js';
import type { HistoryOverview, OverviewHealthRow } from '../../history/history-overview.js';
import type { OverviewFigures } from './overview-schemas.js';

/** Tenants and models charted one by one; the rest are added up as `other`. */
const NAMED_COST_SERIES = 8;

type HealthCounts = Omit<OverviewHealthRow, 'bucket' | 'tool_count'>;

const ratio = (part: number, whole: number): number | null => (whole > 0 ? part / whole : null);

function zeros(buckets: number): number[] {
  return Array.from({ length: buckets }, () => 0);
}

/** Cost series per name (tenant or model), most costly first, past NAMED_COST_SERIES as `other`. */
function costSeries(rows: HistoryOverview['runs'], nameOf: (row: HistoryOverview['runs'][number]) => string, buckets: number) {
  const byName = new Map<string, number[]>();
  for (const row of rows) {
    const micro = byName.get(nameOf(row)) ?? zeros(buckets);
    micro[row.bucket]! += row.cost_micro_usd;
    byName.set(nameOf(row), micro);
  }
  const ranked = [...byName.entries()]
    .map(([name, micro]) => ({ name, micro, total: micro.reduce((sum, value) => sum + value, 0) }))
    .sort((left, right) => right.total - left.total || left.name.localeCompare(right.name));
  const named = ranked.slice(0, NAMED_COST_SERIES);
  const rest = ranked.slice(NAMED_COST_SERIES);
  if (rest.length > 0) {
    const micro = zeros(buckets).map((_, index) => rest.reduce((sum, entry) => sum + entry.micro[index]!, 0));
    named.push({ name: 'other', micro, total: micro.reduce((sum, value) => sum + value, 0) });
  }
  return named.map((entry) => ({ name: entry.name, totalUsd: microUsdToUsd(entry.total), usd: entry.micro.map(microUsdToUsd) }));
}

function addCounts(into: HealthCounts, row: HealthCounts): void {
  into.turns += row.turns;
  into.turns_expecting_tool += row.turns_expecting_tool;
  into.turns_with_tool_use += row.turns_with_tool_use;
  into.json_in_text += row.json_in_text;
  into.fence_only_stops += row.fence_only_stops;
  into.recoveries += row.recoveries;
}

const emptyCounts = (): HealthCounts => ({ turns: 0, turns_expecting_tool: 0, turns_with_tool_use: 0, json_in_text: 0, fence_only_stops: 0, recoveries: 0 });

function healthTotals(counts: HealthCounts) {
  return {
    turns: counts.turns,
    turnsExpectingTool: counts.turns_expecting_tool,
    turnsWithToolUse: counts.turns_with_tool_use,
    jsonInText: counts.json_in_text,
    fenceOnlyStops: counts.fence_only_stops,
    recoveries: counts.recoveries,
    toolUseRate: ratio(counts.turns_with_tool_use, counts.turns_expecting_tool),
    jsonInTextRate: ratio(counts.json_in_text, counts.turns),
    recoveryRate: ratio(counts.recoveries, counts.turns),
  };
}

function healthFigures(rows: HistoryOverview['health'], buckets: number): OverviewFigures['health'] {
  const total = emptyCounts();
  const perBucket = Array.from({ length: buckets }, emptyCounts);
  const perToolCount = new Map<number | null, HealthCounts>();
  for (const row of rows) {
    addCounts(total, row);
    addCounts(perBucket[row.bucket]!, row);
    const counts = perToolCount.get(row.tool_count) ?? emptyCounts();
    addCounts(counts, row);
    perToolCount.set(row.tool_count, counts);
  }
  return {
    ...healthTotals(total),
    series: {
      toolUseRate: perBucket.map((counts) => ratio(counts.turns_with_tool_use, counts.turns_expecting_tool)),
      jsonInTextRate: perBucket.map((counts) => ratio(counts.json_in_text, counts.turns)),
      recoveryRate: perBucket.map((counts) => ratio(counts.recoveries, counts.turns)),
      fenceOnlyStops: perBucket.map((counts) => counts.fence_only_stops),
    },
    byToolCount: [...perToolCount.entries()]
      // Fewest tools first; a request whose count was not recorded last.
      .sort(([left], [right]) => (left ?? Number.MAX_SAFE_INTEGER) - (right ?? Number.MAX_SAFE_INTEGER))
      .map(([toolCount, counts]) => ({ toolCount, ...healthTotals(counts) })),
  };
}

function latencyFigures(rows: HistoryOverview['latency'], buckets: number): OverviewFigures['latency'] {
  const whole = rows.find((row) => row.bucket === null);
  const column = (field: 'turn_p50_ms' | 'turn_p99_ms' | 'model_p50_ms' | 'model_p99_ms') => {
    const values: Array<number | null> = Array.from({ length: buckets }, () => null);
    for (const row of rows) if (row.bucket !== null) values[row.bucket] = row[field];
    return values;
  };
  return {
    turns: whole?.turns ?? 0,
    turnP50Ms: whole?.turn_p50_ms ?? null,
    turnP99Ms: whole?.turn_p99_ms ?? null,
    modelP50Ms: whole?.model_p50_ms ?? null,
    modelP99Ms: whole?.model_p99_ms ?? null,
    series: { turnP50Ms: column('turn_p50_ms'), turnP99Ms: column('turn_p99_ms'), modelP50Ms: column('model_p50_ms'), modelP99Ms: column('model_p99_ms') },
  };
}

/** The overview's figures over time from the rows of `buckets` buckets. A row outside them (a clock
 * between the range's computation and the statement) cannot occur: the statements bound the range. */
export function overviewFigures({ history, buckets }: { history: HistoryOverview; buckets: number }): OverviewFigures {
  const statusSeries = Object.fromEntries(TERMINAL_STATUSES.map((status) => [status, zeros(buckets)])) as Record<TerminalStatus, number[]>;
  let totalMicroUsd = 0;
  for (const row of history.runs) {
    // A status no terminal list names would not have been archived (run-archive.ts); skipped, not counted.
    if ((TERMINAL_STATUSES as readonly string[]).includes(row.status)) statusSeries[row.status as TerminalStatus][row.bucket]! += row.runs;
    totalMicroUsd += row.cost_micro_usd;
  }
  const byStatus = Object.fromEntries(TERMINAL_STATUSES.map((status) => [status, statusSeries[status].reduce((sum, value) => sum + value, 0)])) as Record<
    TerminalStatus,
    number
  >;
  const total = TERMINAL_STATUSES.reduce((sum, status) => sum + byStatus[status], 0);
  const trips = zeros(buckets);
  for (const row of history.killSwitchTrips) trips[row.bucket]! += row.trips;
  return {
    runs: { total, byStatus, successRate: ratio(byStatus.succeeded, total), series: statusSeries },
    cost: {
      totalUsd: microUsdToUsd(totalMicroUsd),
      byTenant: costSeries(history.runs, (row) => row.tenant, buckets),
      byModel: costSeries(history.runs, (row) => row.model, buckets),
    },
    latency: latencyFigures(history.latency, buckets),
    health: healthFigures(history.health, buckets),
    killSwitchTrips: { total: trips.reduce((sum, value) => sum + value, 0), series: trips },
  };
}
