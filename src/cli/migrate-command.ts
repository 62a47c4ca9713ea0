// `buildfleet migrate`: applies the history schema's pending migrations to DATABASE_URL and exits
// (docs/history.md). Run before the processes that read or write history start (compose runs it as
// a one-off service, k8s as an init container of every fleet Pod); safe to run again and from
// several places at once.
import { loadConfig } from '../config.js';
import { migrateHistory } from '../history/migrate-history.js';

/** `--if-configured`: without DATABASE_URL, say so and exit 0 — the k8s init containers run it
 * before every fleet process, and a fleet without history (nothing archived, nothing expires: the
 * processes warn) must still start. */
export async function runMigrateCommand({ environment = process.env, argv = [] }: { environment?: NodeJS.ProcessEnv; argv?: string[] } = {}): Promise<number> {
  const config = loadConfig(environment);
  if (!config.DATABASE_URL && argv.includes('--if-configured')) {
    console.log('buildfleet migrate: DATABASE_URL is not set; no history schema to migrate (the fleet runs without run history)');
    return 0;
  }
  if (!config.DATABASE_URL) {
    // A private PostgreSQL is deleted when its process stops: migrating one from here is useless.
    console.error('buildfleet migrate: DATABASE_URL is not set (postgres://user:password@host:5432/database)');
    return 2;
  }
  const applied = await migrateHistory({ databaseUrl: config.DATABASE_URL });
  console.log(applied.length === 0 ? 'history schema up to date' : `applied ${applied.length} migration(s): ${applied.join(', ')}`);
  return 0;
}
