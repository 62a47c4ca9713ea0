// `buildfleet migrate`: applies the history schema's pending migrations to DATABASE_URL and exits
// (docs/history.md). Run before the processes that read or write history start (compose and k8s
// run it as a one-off step); safe to run again and from several places at once.
import { loadConfig } from '../config.js';
import { migrateHistory } from '../history/migrate-history.js';

export async function runMigrateCommand({ environment = process.env }: { environment?: NodeJS.ProcessEnv } = {}): Promise<number> {
  const config = loadConfig(environment);
  if (!config.DATABASE_URL) {
    // A private PostgreSQL is deleted when its process stops: migrating one from here is useless.
    console.error('buildfleet migrate: DATABASE_URL is not set (postgres://user:password@host:5432/database)');
    return 2;
  }
  const applied = await migrateHistory({ databaseUrl: config.DATABASE_URL });
  console.log(applied.length === 0 ? 'history schema up to date' : `applied ${applied.length} migration(s): ${applied.join(', ')}`);
  return 0;
}
