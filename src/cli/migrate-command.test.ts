// `buildfleet migrate` applies the history schema to DATABASE_URL once, and refuses to run without it.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runMigrateCommand } from './migrate-command.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/postgres.js';

describe('buildfleet migrate', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('migratecommand', { migrate: false });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await database?.drop();
  });

  it('needs DATABASE_URL', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(await runMigrateCommand({ environment: {} })).toBe(2);
    expect(errors.mock.calls.flat().join('\n')).toMatch(/DATABASE_URL is not set/);
  });

  it('with --if-configured, exits 0 without DATABASE_URL and says the fleet runs without history', async () => {
    const lines = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    expect(await runMigrateCommand({ environment: {}, argv: ['--if-configured'] })).toBe(0);
    expect(lines.mock.calls.flat().join('\n')).toMatch(/DATABASE_URL is not set; no history schema to migrate/);
    lines.mockClear();
  });

  it('applies the schema, then reports it up to date', async () => {
    const lines = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    expect(await runMigrateCommand({ environment: { DATABASE_URL: database.url } })).toBe(0);
    expect(await runMigrateCommand({ environment: { DATABASE_URL: database.url } })).toBe(0);
    expect(lines.mock.calls.map((call) => call[0])).toEqual(['applied 7 migration(s): 1767225600000_history-schema, 1767312000000_run-view-columns, 1767398400000_run-rerun-of, 1767484800000_run-provider, 1767571200000_run-thinking-settings, 1767657600000_run-agent, 1767744000000_run-input', 'history schema up to date']);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      expect((await client.query("SELECT to_regclass('public.runs') IS NOT NULL AS present")).rows[0].present).toBe(true);
    } finally {
      await client.end();
    }
  });

  it('refuses a DATABASE_URL that is not PostgreSQL', async () => {
    await expect(runMigrateCommand({ environment: { DATABASE_URL: 'mysql://localhost/db' } })).rejects.toThrow(/DATABASE_URL/);
  });
});
