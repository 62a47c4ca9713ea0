// A run that ends while its jobs still run is archived only once they have finished (issue #21):
// a cancel during a streaming model call stops that call a moment later (watch-run-end.ts), and
// what it had streamed is charged to the ended run afterwards (chargeFailedCall). Archived at the
// cancel, the history would lack that cost for good while Redis shows it until the retention
// passes. Real queues, simulator over HTTP with a slow stream, real Redis and PostgreSQL, the
// fleet's own archive worker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';
import { until } from '../support/until.js';



describe('archiving a run whose jobs outlive its end', () => {
  let harness: InProcessFleet;
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('archive-settles');
    // ~15 output tokens a second: the first answer streams for a few seconds, reported every 300 ms.
    harness = await startInProcessFleet({
      label: 'archive-settles',
      env: { DATABASE_URL: database.url, BUILDFLEET_MODEL_PROGRESS_INTERVAL_MS: '300' },
      simulator: { ttftMs: 100, tokensPerSecond: 15 },
    });
  });
  afterAll(async () => {
    await harness?.close();
    await database?.drop();
  });

  it('waits for a model call stopped mid-stream by the cancel, so the history holds what that call cost', async () => {
    const { store } = harness.fleet;
    const run = await harness.submit({ prompt: 'Build a small bakery website.' });
    // The first answer is streaming: it is paid for from here on.
    await until('the first answer to stream', async () => (await store.readEvents(run.id, '-', 100)).some((event) => event.event === 'model-progress'));
    const cancel = await fetch(`${harness.apiUrl}/v1/runs/${run.id}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${harness.apiKey}` } });
    expect(cancel.status).toBeLessThan(300);
    expect((await store.getRun(run.id))?.status).toBe('cancelled');
    expect((await store.getRun(run.id))?.costMicroUsd).toBe(0);
    const row = await until('the runs row', async () => (await database.pool.query<{ cost: string }>('SELECT cost_micro_usd::text AS cost FROM runs WHERE id = $1', [run.id])).rows[0]);
    // The call was stopped after the cancel and what it had streamed charged to the run, before the archive took it.
    const events = await store.readEvents(run.id, '-', 1000);
    expect(events.find((event) => event.event === 'model-call-fail')).toMatchObject({ outcome: 'run_ended' });
    const charged = (await store.getRun(run.id))?.costMicroUsd ?? 0;
    expect(charged).toBeGreaterThan(0);
    expect(Number(row.cost)).toBe(charged);
  });
});
