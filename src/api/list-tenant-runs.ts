// One page of a tenant's runs, newest first, from its sorted set of run ids scored by creation
// time. A status filter is applied while scanning, so one request reads at most SCAN_LIMIT
// entries: a page can then hold fewer runs than asked for, with a cursor to continue from.
import type { FleetContext } from '../fleet/fleet-context.js';
import type { RunStatus } from '../engine/run-types.js';
import { encodeRunListCursor, type RunListPosition } from './run-list-cursor.js';

const BATCH_SIZE = 100;
const SCAN_LIMIT = 1_000;
const PROMPT_EXCERPT_CHARACTERS = 200;

export interface RunSummary {
  id: string;
  status: RunStatus;
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

/** Reads one page of the tenant's runs after `after` (newest first). */
export async function listTenantRuns({
  fleet,
  tenant,
  limit,
  after,
  status,
}: {
  fleet: FleetContext;
  tenant: string;
  limit: number;
  after: RunListPosition | null;
  status?: RunStatus | undefined;
}): Promise<RunPage> {
  const runs: RunSummary[] = [];
  let scanned = 0;
  let offset = 0;
  for (;;) {
    // Members with equal scores come in descending member order, which the cursor's run id
    // continues from.
    const page = await fleet.store.tenantRunIndex(tenant, { maxScore: after ? after.score : '+inf', offset, count: BATCH_SIZE });
    if (page.length === 0) return { runs, nextCursor: null };
    offset += page.length;
    const entries: RunListPosition[] = page.filter((position) => !(after && position.score === after.score && position.runId >= after.runId));
    // The run hashes are the engine's: it reads and validates the fields a summary shows.
    const readings = await fleet.store.runSummaries(entries.map((entry) => entry.runId));
    for (const [index, entry] of entries.entries()) {
      scanned += 1;
      const reading = readings[index];
      if (reading?.state === 'invalid') {
        // Skipped like an expired one, so one bad record does not break the tenant's listing; the
        // log line says which record and which field.
        fleet.logger.warn({ run_id: entry.runId, err: reading.error.message }, 'run with an invalid stored record left out of the listing');
        continue;
      }
      // A run whose record expired, or (defensively) one of another tenant, is skipped.
      if (reading?.state !== 'found' || reading.value.tenant !== tenant) continue;
      const run = reading.value;
      if (status !== undefined && run.status !== status) continue;
      runs.push({
        id: run.id,
        status: run.status,
        phase: run.phase,
        turn: run.turn,
        prompt: run.prompt.slice(0, PROMPT_EXCERPT_CHARACTERS),
        createdAt: run.createdAt,
        updatedAt: run.updatedAt,
      });
      if (runs.length >= limit || scanned >= SCAN_LIMIT) return { runs, nextCursor: encodeRunListCursor(entry) };
    }
    if (page.length < BATCH_SIZE) return { runs, nextCursor: null };
  }
}
