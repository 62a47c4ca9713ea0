// `buildfleet dev` and `npm run demo` (both startDevFleet) embed run history as they embed Redis:
// with DATABASE_URL unset they start a private PostgreSQL, migrate it and hand its URL to every role
// process. Here without a home, as the demo runs it: removed on stop (dev's kept one:
// dev-restart-history.test.ts). The demo's own sample build ends, the tool worker process
// archives it with no manual step, and the `runs` row is in that private server; after stop the
// server no longer answers.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { runSampleBuild } from '../../src/cli/demo-sample-build.js';
import { useDevFleet } from '../support/dev-fleet.js';

// DATABASE_URL '' stands for unset (the suite itself runs with one).
const handle = useDevFleet({ label: 'devhistory', modelWorkers: 1, toolWorkers: 1, env: { DATABASE_URL: '' } });

async function query<Row extends pg.QueryResultRow>(databaseUrl: string, sql: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<Row>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

describe('the dev fleet’s embedded history', () => {
  it('starts a private PostgreSQL on loopback, and the demo build is archived into it by the fleet itself', async () => {
    const { apiUrl, apiKey, databaseUrl } = handle.fleet;
    expect(databaseUrl).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
    expect(databaseUrl).not.toBe(process.env.DATABASE_URL);
    const outcome = await runSampleBuild({ apiUrl, apiKey, log: () => undefined });
    expect(outcome.ok ? null : outcome.problem).toBeNull();
    if (!outcome.ok) return;
    const runId = outcome.view.id;
    const deadline = Date.now() + 60_000;
    let rows: Array<{ status: string }> = [];
    while (rows.length === 0 && Date.now() < deadline) {
      rows = await query<{ status: string }>(databaseUrl, 'SELECT status FROM runs WHERE id = $1', [runId]);
      if (rows.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(rows).toEqual([{ status: 'succeeded' }]);
  }, 180_000);
});
