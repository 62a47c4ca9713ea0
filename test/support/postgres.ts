// Each test file that needs PostgreSQL gets its own database on the suite's server (DATABASE_URL,
// a private one started by scripts/run-tests.ts), migrated like production (`buildfleet migrate`
// runs the same migrateHistory), and dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrateHistory } from '../../src/history/migrate-history.js';

export function testDatabaseServerUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: run the suite with `npm test` (it starts a private PostgreSQL)');
  return url;
}

export interface TestDatabase {
  url: string;
  /** Connections to this database; ended by drop(). */
  pool: pg.Pool;
  drop(): Promise<void>;
}

async function onServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: testDatabaseServerUrl() });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates an empty database; `migrate: true` (default) applies the history schema to it. */
export async function createTestDatabase(label: string, { migrate = true }: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const name = `t_${label.replace(/[^a-z0-9]/gi, '').slice(0, 20).toLowerCase()}_${randomBytes(4).toString('hex')}`;
  await onServer((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(testDatabaseServerUrl());
  url.pathname = `/${name}`;
  if (migrate) await migrateHistory({ databaseUrl: url.toString() });
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  // An idle client whose server goes away emits here; the test's own queries report failures.
  pool.on('error', () => undefined);
  return {
    url: url.toString(),
    pool,
    async drop() {
      await pool.end();
      await onServer((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
