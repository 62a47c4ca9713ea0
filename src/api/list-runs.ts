// One page of a tenant's runs, newest first, from both places a run can be: the tenant's run index
// in Redis (live runs, and finished ones until their retention passes) and run history in
// PostgreSQL (every archived run). Both are ordered by the same position — (creation time in ms,
// run id), descending, ids compared byte by byte — and one opaque cursor (run-list-cursor.ts) is a
// position, so each source continues strictly after it: a run shows once however many pages there
// are, even when it is archived, or archived and expired, between two of them.
//
// Each source may stop short of the whole listing: Redis after SCAN_LIMIT index entries or `limit`
// matches, history after `limit` rows. Where a source stopped is its frontier: everything newer is
// known, nothing older. The page holds the merged runs down to the newer of the two frontiers (at
// most `limit`), and the next cursor continues from there, so no run older than a frontier can be
// skipped by a page that did not see it.
//
// Redis is read before history, never after: a run's keys expire only once its archive has been
// committed, so a run missing from Redis when it is read is in history when history is read next.
// The other order would miss a run archived and expired between the two reads.
import type { FleetContext } from '../fleet/fleet-context.js';
import { isTerminal, type RunStatus, type RunSummaryRecord } from '../engine/index.js';
import type { ArchivedRun } from '../history/run-archive.js';
import { encodeHistoryCursor } from '../history/history-cursor.js';
import { encodeRunListCursor, type RunListPosition } from './run-list-cursor.js';
import { promptHasWords } from './prompt-has-words.js';
import { readHistory } from './history-unavailable.js';
import { redactText } from '../telemetry/redact-secrets.js';

const BATCH_SIZE = 100;
/** Index entries one request reads at most, so a filter that matches little stays one bounded
 * request (the page then has fewer runs than asked, and a cursor). */
export const SCAN_LIMIT = 1_000;
const PROMPT_EXCERPT_CHARACTERS = 200;

export interface RunSummary {
  id: string;
  status: RunStatus;
  agent: string;
  phase: string;
  turn: number;
  prompt: string;
  createdAt: string;
  updatedAt: string;
}

export interface RunPage {
  runs: RunSummary[];
  /** Pass as `cursor` for the next page; null when there are no more runs. */
  nextCursor: string | null;
}

export interface RunListFilter {
  tenant: string;
  status?: RunStatus | undefined;
  /** Created at or after, ms since the epoch. */
  fromMs?: number | undefined;
  /** Created before, ms since the epoch. */
  toMs?: number | undefined;
  /** Every word of it in the prompt. */
  text?: string | undefined;
}

interface Listed {
  position: RunListPosition;
  summary: RunSummary;
}

/** Listing order: newer first; of two created in the same ms, the greater id (byte order) first.
 * Negative when `left` comes first. */
function compareListed(left: RunListPosition, right: RunListPosition): number {
  if (left.score !== right.score) return right.score - left.score;
  if (left.runId === right.runId) return 0;
  return left.runId > right.runId ? -1 : 1;
}

/** The summary as answered: the prompt's secrets redacted (stored prompts keep them, as the
 * transcript does), then cut — in that order, so a secret cut at the edge cannot slip through as a
 * fragment too short to be recognised. */
function excerpt(summary: RunSummary): RunSummary {
  return { ...summary, prompt: redactText(summary.prompt).slice(0, PROMPT_EXCERPT_CHARACTERS) };
}

function summaryOfRecord(run: RunSummaryRecord): RunSummary {
  return excerpt({
    id: run.id,
    status: run.status,
    agent: run.agent,
    phase: run.phase,
    turn: run.turn,
    prompt: run.prompt,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
  });
}

function summaryOfArchived(run: ArchivedRun): RunSummary {
  return excerpt({
    id: run.id,
    status: run.status,
    agent: run.agent,
    phase: run.phase,
    turn: run.turns,
    prompt: run.prompt,
    createdAt: run.createdAt,
    updatedAt: run.endedAt,
  });
}

/** Which prompts hold the text: PostgreSQL's own test when the fleet has history (the very one
 * the history query applies), else the same rule in JavaScript. */
async function matchText({ fleet, prompts, text }: { fleet: FleetContext; prompts: string[]; text: string }): Promise<boolean[]> {
  const history = fleet.history;
  if (history) return readHistory(() => history.promptsMatchText(prompts, text));
  return prompts.map((prompt) => promptHasWords({ prompt, text }));
}

/** The tenant's runs in Redis after `after` that pass the filter: at most `limit`, reading at most
 * SCAN_LIMIT index entries; `frontier` is the last entry read when it stopped early, null when the
 * index has nothing more. */
async function listRedisRuns({
  fleet,
  filter,
  limit,
  after,
}: {
  fleet: FleetContext;
  filter: RunListFilter;
  limit: number;
  after: RunListPosition | null;
}): Promise<{ runs: Listed[]; frontier: RunListPosition | null }> {
  const runs: Listed[] = [];
  // Index scores are whole ms: "before toMs" is at most toMs - 1.
  let maxScore = Math.min(after?.score ?? Infinity, filter.toMs === undefined ? Infinity : filter.toMs - 1);
  let scanned = 0;
  let offset = 0;
  for (;;) {
    // Members with equal scores come in descending member order, which the cursor's run id
    // continues from.
    const page = await fleet.store.tenantRunIndex(filter.tenant, { maxScore: maxScore === Infinity ? '+inf' : maxScore, offset, count: BATCH_SIZE });
    if (page.length === 0) return { runs, frontier: null };
    // Keyset, not offset, from batch to batch: the next one starts at the lowest score this one
    // reached, past the entries of that score already read. The archive takes runs off this index
    // while a listing reads it; with an offset over the whole index, each one removed above the
    // offset would shift an unread run past it, and that run would be on no page.
    const lowest = page.at(-1)!.score;
    const atLowest = page.filter((entry) => entry.score === lowest).length;
    offset = lowest === maxScore ? offset + atLowest : atLowest;
    maxScore = lowest;
    const entries = page.filter((position) => !(after && position.score === after.score && position.runId >= after.runId));
    const inRange = entries.filter((entry) => filter.fromMs === undefined || entry.score >= filter.fromMs);
    // The run hashes are the engine's: it reads and validates the fields a summary shows.
    const readings = await fleet.store.runSummaries(inRange.map((entry) => entry.runId));
    const summaries = readings.map((reading, index) => {
      const entry = inRange[index]!;
      if (reading.state === 'invalid') {
        // Skipped like an expired one, so one bad record does not break the tenant's listing; the
        // log line says which record and which field.
        fleet.logger.warn({ run_id: entry.runId, err: reading.error.message }, 'run with an invalid stored record left out of the listing');
        return null;
      }
      // A run whose record expired (it is in history if it was archived), or (defensively) one of
      // another tenant, is skipped.
      if (reading.state !== 'found' || reading.value.tenant !== filter.tenant) return null;
      if (filter.status !== undefined && reading.value.status !== filter.status) return null;
      return reading.value;
    });
    const candidates = summaries.flatMap((summary) => (summary ? [summary] : []));
    // One text match per batch (one round trip to PostgreSQL), for the runs that passed the rest.
    const matched = filter.text === undefined ? null : await matchText({ fleet, prompts: candidates.map((summary) => summary.prompt), text: filter.text });
    const matchedIds = new Set(candidates.filter((_, index) => matched === null || matched[index] === true).map((summary) => summary.id));
    for (const [index, entry] of inRange.entries()) {
      scanned += 1;
      const summary = summaries[index];
      if (summary && matchedIds.has(summary.id)) runs.push({ position: entry, summary: summaryOfRecord(summary) });
      if (runs.length >= limit || scanned >= SCAN_LIMIT) return { runs, frontier: entry };
    }
    // Entries come newest first: one created before `from` means none after it is in range.
    if (inRange.length < entries.length || page.length < BATCH_SIZE) return { runs, frontier: null };
  }
}

/** The archived runs after `after` that pass the filter: at most `limit`; `frontier` is the last
 * one when history has more, null when it has nothing more. */
async function listHistoryRuns({
  fleet,
  filter,
  limit,
  after,
}: {
  fleet: FleetContext;
  filter: RunListFilter;
  limit: number;
  after: RunListPosition | null;
}): Promise<{ runs: Listed[]; frontier: RunListPosition | null }> {
  const history = fleet.history;
  const status = filter.status;
  // History holds runs that ended: a listing of live statuses has nothing to find there.
  if (!history || (status !== undefined && !isTerminal(status))) return { runs: [], frontier: null };
  const iso = (ms: number) => new Date(ms).toISOString();
  const page = await readHistory(() =>
    history.listRuns({
      tenant: filter.tenant,
      ...(status !== undefined ? { status } : {}),
      ...(filter.fromMs !== undefined ? { from: iso(filter.fromMs) } : {}),
      ...(filter.toMs !== undefined ? { to: iso(filter.toMs) } : {}),
      ...(filter.text !== undefined ? { text: filter.text } : {}),
      limit,
      ...(after ? { cursor: encodeHistoryCursor({ createdAt: iso(after.score), id: after.runId }) } : {}),
    }),
  );
  const archived = page.runs.map((run) => ({ position: { score: Date.parse(run.createdAt), runId: run.id }, summary: summaryOfArchived(run) }));
  // The frontier is the last row history gave, shown or not: rows left out below are runs Redis
  // answers for, not runs this page failed to see.
  const frontier = page.nextCursor === null ? null : (archived.at(-1)?.position ?? null);
  return { runs: await preferLiveRecords({ fleet, filter, archived }), frontier };
}

/**
 * Archived runs as Redis has them when it still holds their record. A failed run that was archived
 * and then resumed (POST /v1/runs/:id/resume) keeps the row of its earlier end until its next end is
 * archived over it (history-store.ts archiveRun), while its record in Redis is running again, or has
 * ended since: the record is the run's current state, so the row is shown as the record says, and
 * left out when that no longer passes the status filter (a resumed run is not `failed` any more).
 * Read after history, like every check of Redis that follows it here: a run resumed after the
 * history read is still seen as it now is. A record that is gone (expired: the row is its last end)
 * or does not decode (the Redis listing skips it and logs) leaves the row as history has it.
 */
async function preferLiveRecords({ fleet, filter, archived }: { fleet: FleetContext; filter: RunListFilter; archived: Listed[] }): Promise<Listed[]> {
  const readings = await fleet.store.runSummaries(archived.map((listed) => listed.summary.id));
  return archived.flatMap((listed, index) => {
    const reading = readings[index];
    if (reading?.state !== 'found' || reading.value.tenant !== filter.tenant) return [listed];
    if (filter.status !== undefined && reading.value.status !== filter.status) return [];
    return [{ position: listed.position, summary: summaryOfRecord(reading.value) }];
  });
}

/** One page of the tenant's runs after `after` (newest first), live and archived merged. */
export async function listRuns({
  fleet,
  filter,
  limit,
  after,
}: {
  fleet: FleetContext;
  filter: RunListFilter;
  limit: number;
  after: RunListPosition | null;
}): Promise<RunPage> {
  const redis = await listRedisRuns({ fleet, filter, limit, after });
  const history = await listHistoryRuns({ fleet, filter, limit, after });

  // A run in both (archived, its retention not passed) shows once, as Redis has it: the two agree
  // (the archive is the ended record), except for a run resumed since its archive, which both
  // sources now show as its record in Redis says (preferLiveRecords).
  const byId = new Map<string, Listed>();
  for (const listed of [...redis.runs, ...history.runs]) if (!byId.has(listed.summary.id)) byId.set(listed.summary.id, listed);
  const merged = [...byId.values()].sort((left, right) => compareListed(left.position, right.position));

  const frontiers = [redis.frontier, history.frontier].filter((frontier): frontier is RunListPosition => frontier !== null);
  const frontier = frontiers.sort(compareListed)[0] ?? null;
  const known = frontier ? merged.filter((listed) => compareListed(listed.position, frontier) <= 0) : merged;
  const page = known.slice(0, limit);
  let next: RunListPosition | null = null;
  if (known.length > limit) next = page.at(-1)!.position;
  else if (frontier) next = frontier;
  return { runs: page.map((listed) => listed.summary), nextCursor: next ? encodeRunListCursor(next) : null };
}
