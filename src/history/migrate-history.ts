// Applies the history schema's migrations (src/history/migrations/) to a database: `buildfleet
// migrate` and the test helper run it. node-pg-migrate is the tool: maintained, made for
// PostgreSQL and node-postgres (the driver used here), it records applied migrations in a table,
// runs pending ones in one transaction, and holds an advisory lock meanwhile, so two processes
// migrating at once apply each migration once. The lock is a try-lock (the runner throws "Another
// migration is already running"); the one that loses waits for the winner and then finds nothing
// left to apply, so `buildfleet migrate` in every replica's start-up is safe.
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

/** The table node-pg-migrate keeps the applied migrations in. */
export const MIGRATIONS_TABLE = 'buildfleet_migrations';

/** Beside this module in src/ and in dist/ alike (the migrations compile with it). */
const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/** How long to wait for another process's migration (a schema change on a big table is slow). */
const WAIT_FOR_OTHER_MIGRATION_MS = 15 * 60_000;

function isLockedByAnother(error: unknown): boolean {
  return error instanceof Error && /Another migration is already running/.test(error.message);
}

interface MigrateOptions {
  databaseUrl: string;
  log?: (line: string) => void;
  /** Tests only: apply the first `count` pending migrations, to hold rows archived before a later one. */
  count?: number;
}

/** Applies every pending migration; returns the names of those applied (none when up to date, or
 * when another process applied them meanwhile). */
export async function migrateHistory(options: MigrateOptions): Promise<string[]> {
  const started = Date.now();
  for (;;) {
    try {
      return await migrateOnce(options);
    } catch (error) {
      if (!isLockedByAnother(error) || Date.now() - started > WAIT_FOR_OTHER_MIGRATION_MS) throw error;
      options.log?.('another process is migrating; waiting for it');
      await sleep(250);
    }
  }
}

async function migrateOnce({ databaseUrl, log, count }: MigrateOptions): Promise<string[]> {
  // Our own client rather than `databaseUrl`, so its lifetime (and its errors: a server that goes
  // away emits on the client) are ours, not an unhandled event inside the runner.
  const client = new pg.Client({ connectionString: databaseUrl });
  let failure: Error | null = null;
  client.on('error', (error) => {
    failure = error;
  });
  await client.connect();
  try {
    const applied = await runner({
      dbClient: client,
      dir: MIGRATIONS_DIR,
      // The compiled tree also holds source maps; a migration is a .ts (tsx, tests) or .js (dist) file.
      ignorePattern: '(\\..*)|(.*\\.map)|(.*\\.d\\.ts)',
      migrationsTable: MIGRATIONS_TABLE,
      direction: 'up',
      ...(count === undefined ? {} : { count }),
      checkOrder: true,
      singleTransaction: true,
      log: log ?? (() => undefined),
    });
    if (failure) throw failure;
    return applied.map((migration) => migration.name);
  } finally {
    await client.end().catch(() => undefined);
  }
}
