// A run that ends while its jobs still run is archived only once they have finished (issue #21):
// a cancel during a model call leaves that call running, and its answer is committed and charged
// to the ended run afterwards (bfCommitAnswer). Archived at the cancel, the history would lack that
// cost for good while Redis shows it until the retention passes. Real queues, simulator over
// HTTP with a slow answer, real Redis and PostgreSQL, the fleet's own archive worker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';
import { until } from '../support/until.js';

const MODEL_LATENCY_MS = 2_500;


describe('archiving a run whose jobs outlive its end', () => {
  let harness: InProcessFleet;
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('archive-settles');
    harness = await startInProcessFleet({ label: 'archive-settles', env: { DATABASE_URL: database.url }, simulator: { latencyMs: { min: MODEL_LATENCY_MS, max: MODEL_LATENCY_MS } } });
  });
  afterAll(async () => {
    await harness?.close();
    await database?.drop();
  });

  it('waits for a model call cancelled mid-flight, so the history holds what that call cost', async () => {
    const { store } = harness.fleet;
    const run = await harness.submit({ prompt: 'Build a small bakery website.' });
    // The first model call is on its way (the simulator holds its answer for a while).
    await until('the first turn to start', async () => (await store.readEvents(run.id, '-', 100)).some((event) => event.event === 'turn-start'));
    const cancel = await fetch(`${harness.apiUrl}/v1/runs/${run.id}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${harness.apiKey}` } });
    expect(cancel.status).toBeLessThan(300);
    expect((await store.getRun(run.id))?.status).toBe('cancelled');
    expect((await store.getRun(run.id))?.costMicroUsd).toBe(0);
    const row = await until('the runs row', async () => (await database.pool.query<{ cost: string }>('SELECT cost_micro_usd::text AS cost FROM runs WHERE id = $1', [run.id])).rows[0]);
    // The call finished after the cancel and was charged to the run, before the archive took it.
    const charged = (await store.getRun(run.id))?.costMicroUsd ?? 0;
    expect(charged).toBeGreaterThan(0);
    expect(Number(row.cost)).toBe(charged);
  });
});
