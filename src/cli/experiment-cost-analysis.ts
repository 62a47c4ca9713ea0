// The cost experiment's reading of the simulator's request log: what the "provider" billed, request
// by request, and why each request of a cached build paid what it paid. Each answered request is
// classed by what the prompt cache could do for it (docs build-with-claude/prompt-caching, "What
// invalidates the cache": a change to the tools invalidates everything after them, to the system
// prompt the system and the messages, to tool_choice or thinking the messages):
//   first         the run's first request: nothing of this run was cached yet (the tools and
//                 the system prompt may be read from another run of the same phase)
//   prefix-change tools, system prompt, tool_choice or thinking differ from the run's previous
//                 request (a phase change: the planned miss), so the transcript is written again
//   same-prefix   the previous request's prefix is still the start of this one: it should read
//                 everything the previous request cached and write only the turn's new blocks
// A same-prefix request that reads less than its predecessor cached (read + written) is a miss
// the design does not plan: an expired entry, a prefix under the model's minimum cacheable length,
// or bytes that changed.
import { EMPTY_USAGE, addUsage, usageFromApi, type UsageByClass } from '../domain/usage.js';
import { costMicroUsd } from '../domain/usage-cost.js';
import type { ModelPrice } from '../domain/model-prices.js';
import type { RecordedRequest } from '../sim/simulator-server.js';

export const REQUEST_KINDS = ['first', 'prefix-change', 'same-prefix'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];

/** One answered model call as billed. */
export interface BilledRequest {
  runId: string;
  /** 0-based position among the run's answered calls. */
  index: number;
  kind: RequestKind;
  /** The run's phase on this turn (its turn-start event), null when the events do not line up
   * with the answered calls (a retried call). */
  phase: string | null;
  /** A same-prefix request that read less than its predecessor cached. */
  missed: boolean;
  /** The request carried breakpoints but neither read nor wrote: its prefixes were all under the
   * model's minimum cacheable length. */
  belowMinimum: boolean;
  cacheBreakpoints: number;
  usage: UsageByClass;
  inputMicroUsd: number;
  totalMicroUsd: number;
  /** For a prefix-change request: its input cost had the change kept the prefix, i.e. had it
   * read what its predecessor cached and written only the rest (an estimate: the tools of two
   * tiers differ in length). Else the input cost as billed. */
  keptPrefixInputMicroUsd: number;
}

/** Sums over a set of requests. */
export interface RequestTotals {
  requests: number;
  usage: UsageByClass;
  inputMicroUsd: number;
  totalMicroUsd: number;
}

export const EMPTY_TOTALS: Readonly<RequestTotals> = Object.freeze({ requests: 0, usage: EMPTY_USAGE, inputMicroUsd: 0, totalMicroUsd: 0 });

interface SentBody {
  tools?: unknown;
  system?: unknown;
  tool_choice?: unknown;
  thinking?: unknown;
}

/** Everything before the messages that keys the cache, without `cache_control` (a breakpoint that
 * moved is not a change of the prompt). */
function prefixKey(body: unknown): string {
  const sent = (typeof body === 'object' && body !== null ? body : {}) as SentBody;
  return JSON.stringify(
    { tools: sent.tools ?? null, system: sent.system ?? null, tool_choice: sent.tool_choice ?? null, thinking: sent.thinking ?? null },
    (key, value: unknown) => (key === 'cache_control' ? undefined : value),
  );
}

/** The input classes' part of an answer's cost (output priced at 0), rounded per answer like the fleet's cost. */
function inputCostMicroUsd(usage: UsageByClass, price: ModelPrice): number {
  return costMicroUsd({ usage: { ...usage, output_tokens: 0 }, price });
}

/**
 * The answered `/v1/messages` calls of one run, in the order the simulator received them, each
 * priced and classed. `requests` is the simulator's log (any runs); the run is told by the fleet's
 * `x-buildfleet-run-id` header.
 */
export function billRunRequests({
  requests,
  runId,
  price,
  phases = [],
}: {
  requests: readonly RecordedRequest[];
  runId: string;
  /** The price of one answer's usage: a banded price (Haiku 5.5) depends on the prompt's length. */
  price: ModelPrice | ((usage: UsageByClass) => ModelPrice);
  /** The phase of each turn attempt, in order (the run's turn-start events). */
  phases?: readonly string[];
}): BilledRequest[] {
  const answered = requests.filter(
    (request) => request.path === '/v1/messages' && request.headers['x-buildfleet-run-id'] === runId && request.status === 200 && request.usage,
  );
  const phasesLineUp = phases.length === answered.length;
  const billed: BilledRequest[] = [];
  let previousKey: string | null = null;
  for (const [index, request] of answered.entries()) {
    const usage = usageFromApi(request.usage!);
    const key = prefixKey(request.body);
    const previous = billed.at(-1);
    const kind: RequestKind = index === 0 ? 'first' : key === previousKey ? 'same-prefix' : 'prefix-change';
    previousKey = key;
    const cacheBreakpoints = request.cacheBreakpoints ?? 0;
    const previousCached = previous
      ? previous.usage.cache_read_input_tokens + previous.usage.cache_write_5m_input_tokens + previous.usage.cache_write_1h_input_tokens
      : 0;
    const written = usage.cache_write_5m_input_tokens + usage.cache_write_1h_input_tokens;
    const priceOfAnswer = typeof price === 'function' ? price(usage) : price;
    const inputMicroUsd = inputCostMicroUsd(usage, priceOfAnswer);
    billed.push({
      runId,
      index,
      kind,
      phase: phasesLineUp ? phases[index]! : null,
      missed: kind === 'same-prefix' && cacheBreakpoints > 0 && usage.cache_read_input_tokens < previousCached,
      belowMinimum: cacheBreakpoints > 0 && usage.cache_read_input_tokens === 0 && written === 0,
      cacheBreakpoints,
      usage,
      inputMicroUsd,
      totalMicroUsd: costMicroUsd({ usage, price: priceOfAnswer }),
      keptPrefixInputMicroUsd:
        kind === 'prefix-change' && previousCached > 0 ? inputCostMicroUsd(keptPrefixUsage(usage, previousCached), priceOfAnswer) : inputMicroUsd,
    });
  }
  return billed;
}

/** The usage of a request that read `cached` tokens of its prompt instead of writing them. */
function keptPrefixUsage(usage: UsageByClass, cached: number): UsageByClass {
  const written = usage.cache_write_5m_input_tokens + usage.cache_write_1h_input_tokens;
  // What it already read (the tools and system prompt another run cached) stays a read.
  const read = Math.max(0, Math.min(cached, usage.cache_read_input_tokens + written) - usage.cache_read_input_tokens);
  // The reads come out of the writes of the longer lifetime first: it is the dearer write.
  const fromOneHour = Math.min(read, usage.cache_write_1h_input_tokens);
  return {
    ...usage,
    cache_read_input_tokens: usage.cache_read_input_tokens + read,
    cache_write_1h_input_tokens: usage.cache_write_1h_input_tokens - fromOneHour,
    cache_write_5m_input_tokens: usage.cache_write_5m_input_tokens - (read - fromOneHour),
  };
}

/** The sums over `requests`. */
export function totalsOf(requests: readonly BilledRequest[]): RequestTotals {
  return requests.reduce<RequestTotals>(
    (sum, request) => ({
      requests: sum.requests + 1,
      usage: addUsage(sum.usage, request.usage),
      inputMicroUsd: sum.inputMicroUsd + request.inputMicroUsd,
      totalMicroUsd: sum.totalMicroUsd + request.totalMicroUsd,
    }),
    { ...EMPTY_TOTALS, usage: { ...EMPTY_USAGE } },
  );
}

/** One row of the breakdown: a kind of request (phase changes apart by transition) and its sums. */
export interface BreakdownRow {
  label: string;
  kind: RequestKind;
  totals: RequestTotals;
  /** The input cost of these requests had no phase change invalidated the prefix (see BilledRequest). */
  keptPrefixInputMicroUsd: number;
}

/** Where the input cost goes: the run's first requests, each phase transition, the same-prefix turns. */
export function costBreakdown(requests: readonly BilledRequest[]): BreakdownRow[] {
  const labelOf = (request: BilledRequest, previous: BilledRequest | undefined): string => {
    if (request.kind !== 'prefix-change') return request.kind;
    return request.phase !== null && previous?.phase != null ? `prefix change ${previous.phase} → ${request.phase}` : 'prefix change';
  };
  const groups = new Map<string, { kind: RequestKind; members: BilledRequest[] }>();
  requests.forEach((request, position) => {
    const previous = position > 0 && requests[position - 1]!.runId === request.runId ? requests[position - 1] : undefined;
    const label = labelOf(request, previous);
    const group = groups.get(label) ?? { kind: request.kind, members: [] };
    group.members.push(request);
    groups.set(label, group);
  });
  const order = (row: BreakdownRow) => REQUEST_KINDS.indexOf(row.kind);
  return [...groups.entries()]
    .map(([label, group]) => ({
      label,
      kind: group.kind,
      totals: totalsOf(group.members),
      keptPrefixInputMicroUsd: group.members.reduce((sum, request) => sum + request.keptPrefixInputMicroUsd, 0),
    }))
    .sort((left, right) => order(left) - order(right));
}
