// One page of a tenant's runs, newest first, from its sorted set of run ids scored by creation
// time. A status filter is applied while scanning, so one request reads at most SCAN_LIMIT
// entries: a page can then hold fewer runs than asked for, with a cursor to continue from.
import type { FleetContext } from '../fleet/fleet-context.js';
import { RUN_STATUSES, type RunStatus } from '../engine/run-types.js';
import { encodeRunListCursor, type RunListPosition } from './run-list-cursor.js';

const BATCH_SIZE = 100;
const SCAN_LIMIT = 1_000;
const PROMPT_EXCERPT_CHARACTERS = 200;
const FIELDS = ['id', 'tenant', 'status', 'phase', 'turn', 'prompt', 'createdAt', 'updatedAt'] as const;

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

function isStatus(value: string | null): value is RunStatus {
  return value !== null && (RUN_STATUSES as readonly string[]).includes(value);
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
  const key = fleet.store.keys.runsByTenant(tenant);
  const runs: RunSummary[] = [];
  let scanned = 0;
  let offset = 0;
  for (;;) {
    // Members with equal scores come in descending member order, which the cursor's run id
    // continues from.
    const flat = await fleet.redis.zrevrangebyscore(key, after ? after.score : '+inf', '-inf', 'WITHSCORES', 'LIMIT', offset, BATCH_SIZE);
    if (flat.length === 0) return { runs, nextCursor: null };
    offset += flat.length / 2;
    const entries: RunListPosition[] = [];
    for (let index = 0; index < flat.length; index += 2) {
      const position = { runId: flat[index] ?? '', score: Number(flat[index + 1]) };
      if (after && position.score === after.score && position.runId >= after.runId) continue;
      entries.push(position);
    }
    const pipeline = fleet.redis.pipeline();
    for (const entry of entries) pipeline.hmget(fleet.store.keys.run(entry.runId), ...FIELDS);
    const rows = (await pipeline.exec()) ?? [];
    for (const [index, entry] of entries.entries()) {
      scanned += 1;
      const [error, values] = rows[index] ?? [null, null];
      if (error) throw error;
      const [id, owner, runStatus, phase, turn, prompt, createdAt, updatedAt] = (values as Array<string | null>) ?? [];
      // A run whose record expired, or (defensively) one of another tenant, is skipped.
      if (!id || owner !== tenant || !isStatus(runStatus ?? null)) continue;
      if (status !== undefined && runStatus !== status) continue;
      runs.push({
        id,
        status: runStatus as RunStatus,
        phase: phase ?? 'planning',
        turn: Number(turn ?? 0),
        prompt: (prompt ?? '').slice(0, PROMPT_EXCERPT_CHARACTERS),
        createdAt: createdAt ?? '',
        updatedAt: updatedAt ?? '',
      });
      if (runs.length >= limit || scanned >= SCAN_LIMIT) return { runs, nextCursor: encodeRunListCursor(entry) };
    }
    if (flat.length / 2 < BATCH_SIZE) return { runs, nextCursor: null };
  }
}
