// GET /v1/runs of a run resumed after its failed end was archived (issue #18, review finding 3):
// the `runs` row keeps the failed end until the next end is archived over it, while the run's
// record in Redis is running again, then ended anew. The listing shows the run once, with the
// status its record has now — never under `status=failed` from the old row — and after the next
// archive, and after its keys expire, as history then has it. Real queue, Redis, simulator,
// PostgreSQL and HTTP; the archive is the real archive step, driven by the test.
import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRunId } from '../../src/engine/index.js';
import type { HistoryStore } from '../../src/history/history-store.js';
import { siteStoreOf } from '../../src/sites/site-store-of-config.js';
import { archiveFinishedRun, type ArchiveDependencies } from '../../src/workers/archive-worker.js';
import { startToolWorker } from '../../src/workers/tool-worker.js';
import { jobIds, QUEUE_NAMES } from '../../src/jobs/job-catalog.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { until } from '../support/until.js';

let harness: InProcessFleet;
let database: TestDatabase;
let history: HistoryStore;
let toolWorker: Worker | null = null;

beforeAll(async () => {
  database = await createTestDatabase('resumelisting');
  // archive: false — the test archives with the real step itself, when it chooses. No tool worker
  // at first: the resumed run stays `running` while its first tool calls wait, for as long as the
  // test looks at it.
  harness = await startInProcessFleet({ label: 'resumelisting', env: { DATABASE_URL: database.url, BUILDFLEET_RETRY_BASE_MS: '20' }, archive: false, toolWorkers: 0 });
  if (!harness.fleet.history) throw new Error('the fleet has no history store although DATABASE_URL is set');
  history = harness.fleet.history;
}, 120_000);
afterAll(async () => {
  await toolWorker?.close();
  await harness?.close();
  await database?.drop();
});

function archiveDependencies(retentionMs: number): ArchiveDependencies {
  return { store: harness.fleet.store, queues: harness.fleet.queues, history, sites: siteStoreOf(harness.config), retentionMs };
}

/** The listing's entries for `runId` (every page: the test's runs fit one), as `status` filters it. */
async function listed(runId: string, status?: string): Promise<Array<{ id: string; status: string }>> {
  const query = new URLSearchParams({ limit: '100', ...(status ? { status } : {}) });
  const response = await fetch(`${harness.apiUrl}/v1/runs?${query}`, { headers: { authorization: `Bearer ${harness.apiKey}` } });
  expect(response.status).toBe(200);
  const page = (await response.json()) as { runs: Array<{ id: string; status: string }>; nextCursor: string | null };
  expect(page.nextCursor).toBeNull();
  return page.runs.filter((run) => run.id === runId).map((run) => ({ id: run.id, status: run.status }));
}

describe('the listing of a run resumed after its archive', () => {
  it('shows it once, as its record has it now, never as failed from the row of its earlier end', async () => {
    // Turn 0 fails model_unavailable (every attempt answered 503): the run never called a tool.
    const runId = newRunId();
    harness.simulator.faults.add({ kind: 'server_error', status: 503, runId, count: 5 });
    await harness.submit({ runId });
    expect((await harness.waitForRun(runId, 60_000)).error?.code).toBe('model_unavailable');
    expect(await archiveFinishedRun(archiveDependencies(3_600_000), runId)).toBe('archived');
    expect(await listed(runId, 'failed')).toEqual([{ id: runId, status: 'failed' }]);

    const resumed = await fetch(`${harness.apiUrl}/v1/runs/${runId}/resume`, { method: 'POST', headers: { authorization: `Bearer ${harness.apiKey}` } });
    expect(resumed.status).toBe(202);
    // Running again: turn 0 answered and handed out its tool calls, which no tool worker takes yet.
    await until('the resumed run waiting for its tools', async () => (await harness.fleet.queues.own.jobState(QUEUE_NAMES.model, jobIds.modelTurn(runId, 1))) === 'waiting-children');
    expect((await harness.fleet.store.getRun(runId))!.status).toBe('running');
    expect(await history.getRun(runId)).toMatchObject({ status: 'failed' });
    expect(await listed(runId, 'failed')).toEqual([]);
    expect(await listed(runId, 'running')).toEqual([{ id: runId, status: 'running' }]);
    expect(await listed(runId)).toEqual([{ id: runId, status: 'running' }]);

    // Ended again, not yet archived: the row still holds the failed end.
    toolWorker = startToolWorker(harness.fleet, {});
    expect((await harness.waitForRun(runId, 60_000)).status).toBe('succeeded');
    expect(await history.getRun(runId)).toMatchObject({ status: 'failed' });
    expect(await listed(runId, 'failed')).toEqual([]);
    expect(await listed(runId, 'succeeded')).toEqual([{ id: runId, status: 'succeeded' }]);
    expect(await listed(runId)).toEqual([{ id: runId, status: 'succeeded' }]);

    // Archived again, over the row of the earlier end; then its keys expire and history alone
    // answers, with the new end.
    expect(await archiveFinishedRun(archiveDependencies(1), runId)).toBe('archived');
    expect(await history.getRun(runId)).toMatchObject({ status: 'succeeded', errorCode: null });
    await until('the resumed run’s keys to expire', async () => (await harness.fleet.redis.exists(harness.fleet.store.keys.run(runId))) === 0);
    expect(await listed(runId, 'failed')).toEqual([]);
    expect(await listed(runId, 'succeeded')).toEqual([{ id: runId, status: 'succeeded' }]);
    expect(await listed(runId)).toEqual([{ id: runId, status: 'succeeded' }]);
  });
});
