// Section 8 of `npm run bench` (issue #21): what a finished run costs Redis before and after it is
// archived, and how many runs per second the archive step moves to PostgreSQL.
//
// An in-process fleet with no history (nothing archived, nothing expires: Redis as before #21)
// runs `runs` builds, `concurrency` at a time; Redis `used_memory` before and after gives the bytes
// per finished run. Then every run is archived with the archive worker's own function
// (`archiveFinishedRun`: read from Redis, shape, write to PostgreSQL in one transaction, copy any
// Redis-only site to the store, start the retention) — `archiveConcurrency` at a time, as the
// worker takes jobs — timed from the first to the last; with a retention of 1 ms the run's keys
// then expire, and `used_memory` again gives what a finished run leaves behind in Redis.
import pg from 'pg';
import type { Redis } from 'ioredis';
import { startInProcessFleet } from '../src/dev/in-process-fleet.js';
import { startPrivatePostgres, type PrivatePostgres } from '../src/dev/private-postgres.js';
import { migrateHistory } from '../src/history/migrate-history.js';
import { HistoryStore } from '../src/history/history-store.js';
import { archiveFinishedRun } from '../src/workers/archive-worker.js';
import { siteStoreOf } from '../src/sites/site-store-of-config.js';

export interface HistoryArchiveFigures {
  runs: number;
  succeeded: number;
  /** used_memory growth per finished run while its keys are kept (before archiving). */
  bytesPerRunBefore: number;
  /** What is left per run once archived and its keys expired (indexes, trimmed queue jobs). */
  bytesPerRunAfter: number;
  archiveConcurrency: number;
  archiveSeconds: number;
  archivedPerSecond: number;
  /** Outcomes of archiveFinishedRun ('archived' for every run on a fresh database). */
  outcomes: Record<string, number>;
  /** Runs whose record was still in Redis when the bench stopped waiting for the expiry. */
  notExpired: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function usedMemory(redis: Redis): Promise<number> {
  const match = /^used_memory:(\d+)/m.exec(await redis.info('memory'));
  if (!match) throw new Error('Redis INFO memory has no used_memory line');
  return Number(match[1]);
}

async function inBatches<T>(items: readonly T[], size: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, size) }, async () => {
      while (next < items.length) await each(items[next++]!);
    }),
  );
}

export async function measureHistoryArchive({
  redisUrl,
  admin,
  runs,
  concurrency,
  archiveConcurrency,
  env,
}: {
  redisUrl: string;
  /** A connection of the bench's own, for INFO. */
  admin: Redis;
  runs: number;
  concurrency: number;
  archiveConcurrency: number;
  env: Record<string, string>;
}): Promise<HistoryArchiveFigures> {
  let privatePostgres: PrivatePostgres | null = null;
  const fleet = await startInProcessFleet({ redisUrl, env, simulator: { latencyMs: { min: 0, max: 0 } }, cleanUp: true });
  try {
    // One warm-up run, so the first measured build does not carry the fleet's own first keys.
    await fleet.waitForRun((await fleet.submit({})).id, 60_000);
    await sleep(500);
    const before = await usedMemory(admin);
    const ids: string[] = [];
    let succeeded = 0;
    await inBatches(
      Array.from({ length: runs }, (_, index) => index),
      concurrency,
      async (index) => {
        const run = await fleet.submit({ prompt: `Build a small website for bakery number ${index + 1}.` });
        ids.push(run.id);
        if ((await fleet.waitForRun(run.id, 120_000)).status === 'succeeded') succeeded += 1;
      },
    );
    await sleep(500);
    const kept = await usedMemory(admin);

    const databaseUrl = process.env.DATABASE_URL ?? (privatePostgres = await startPrivatePostgres({ quiet: true })).url;
    await migrateHistory({ databaseUrl });
    const pool = new pg.Pool({ connectionString: databaseUrl, max: archiveConcurrency });
    try {
      const deps = { store: fleet.fleet.store, queues: fleet.fleet.queues, history: new HistoryStore(pool), sites: siteStoreOf(fleet.config), retentionMs: 1 };
      const outcomes: Record<string, number> = {};
      const started = performance.now();
      await inBatches(ids, archiveConcurrency, async (id) => {
        const outcome = await archiveFinishedRun(deps, id);
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      });
      const archiveSeconds = (performance.now() - started) / 1000;
      // Redis removes expired keys lazily and in its background cycle: wait until they are gone.
      const deadline = Date.now() + 60_000;
      let notExpired = ids.length;
      while (Date.now() < deadline) {
        notExpired = 0;
        for (const id of ids) if ((await fleet.fleet.store.getRun(id)) !== null) notExpired += 1;
        if (notExpired === 0) break;
        await sleep(500);
      }
      const after = await usedMemory(admin);
      return {
        runs: ids.length,
        succeeded,
        bytesPerRunBefore: (kept - before) / Math.max(1, ids.length),
        bytesPerRunAfter: (after - before) / Math.max(1, ids.length),
        archiveConcurrency,
        archiveSeconds,
        archivedPerSecond: ids.length / archiveSeconds,
        outcomes,
        notExpired,
      };
    } finally {
      await pool.end();
    }
  } finally {
    await fleet.close();
    await privatePostgres?.stop();
  }
}
