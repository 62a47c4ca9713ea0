// Resume and rerun against run history (docs/history.md): a failed run that was archived (its keys
// set to expire) is resumed — its keys kept, its next end archived in place of the first — while a
// run only history still holds is refused resume (run_archived) and rerun from history. Real queue,
// Redis, simulator and PostgreSQL; the archive is the real archive step, driven by the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRunId } from '../../src/engine/index.js';
import type { HistoryStore } from '../../src/history/history-store.js';
import { siteStoreOf } from '../../src/sites/site-store-of-config.js';
import { archiveFinishedRun, type ArchiveDependencies } from '../../src/workers/archive-worker.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

let harness: InProcessFleet;
let database: TestDatabase;
let history: HistoryStore;

beforeAll(async () => {
  database = await createTestDatabase('resumehistory');
  // archive: false — the test archives with the real step itself, when it chooses.
  harness = await startInProcessFleet({ label: 'resumehistory', env: { DATABASE_URL: database.url, BUILDFLEET_RETRY_BASE_MS: '20' }, archive: false });
  if (!harness.fleet.history) throw new Error('the fleet has no history store although DATABASE_URL is set');
  history = harness.fleet.history;
}, 120_000);
afterAll(async () => {
  await harness?.close();
  await database?.drop();
});

async function post(path: string, body?: unknown) {
  const response = await fetch(`${harness.apiUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${harness.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function archiveDependencies(retentionMs: number): ArchiveDependencies {
  return { store: harness.fleet.store, queues: harness.fleet.queues, history, sites: siteStoreOf(harness.config), retentionMs };
}

async function runFailingAtTurn(turn: number): Promise<string> {
  const runId = newRunId();
  harness.simulator.faults.add([{ kind: 'slow', delayMs: 0, runId, count: turn }, { kind: 'server_error', status: 503, runId, count: 5 }]);
  await harness.submit({ runId });
  const failed = await harness.waitForRun(runId, 60_000);
  expect(failed.error?.code).toBe('model_unavailable');
  return runId;
}

describe('resume and rerun with run history', () => {
  it('resumes an archived run whose keys are still in Redis, and archives its new end in place of the old', async () => {
    const runId = await runFailingAtTurn(2);
    const runKey = harness.fleet.store.keys.run(runId);
    expect(await archiveFinishedRun(archiveDependencies(3_600_000), runId)).toBe('archived');
    expect(await harness.fleet.redis.pttl(runKey)).toBeGreaterThan(0);
    expect(await history.getRun(runId)).toMatchObject({ status: 'failed', errorCode: 'model_unavailable' });

    expect(await post(`/v1/runs/${runId}/resume`)).toMatchObject({ status: 202, body: { id: runId, status: 'running' } });
    // The keys no longer expire, and the record is no longer marked archived.
    expect(await harness.fleet.redis.pttl(runKey)).toBe(-1);
    expect(await harness.fleet.redis.pttl(harness.fleet.store.keys.events(runId))).toBe(-1);
    expect(await harness.fleet.redis.hget(runKey, 'archivedAt')).toBeNull();
    const done = await harness.waitForRun(runId, 60_000);
    expect(done.status).toBe('succeeded');

    // The second end is archived over the first: the row, its events (both ends) and turns.
    expect(await archiveFinishedRun(archiveDependencies(3_600_000), runId)).toBe('archived');
    const archived = await history.getRun(runId);
    expect(archived).toMatchObject({ status: 'succeeded', errorCode: null, costMicroUsd: done.costMicroUsd, turns: done.turn });
    const events = await history.readEvents(runId, '-', 10_000);
    expect(events.filter((event) => event.event === 'run-end').map((event) => (event.data as { status: string }).status)).toEqual(['failed', 'succeeded']);
    // Archiving the same end again writes nothing.
    expect(await archiveFinishedRun(archiveDependencies(3_600_000), runId)).toBe('already-archived');
  });

  it('refuses to resume a run only history holds, and reruns it from history', async () => {
    const runId = await runFailingAtTurn(1);
    const original = (await harness.fleet.store.getRun(runId))!;
    expect(await archiveFinishedRun(archiveDependencies(1), runId)).toBe('archived');
    for (let attempt = 0; (await harness.fleet.redis.exists(harness.fleet.store.keys.run(runId))) === 1; attempt += 1) {
      if (attempt > 3_000) throw new Error(`the keys of ${runId} did not expire`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }

    const refused = await post(`/v1/runs/${runId}/resume`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'run_archived' });

    const rerun = await post(`/v1/runs/${runId}/rerun`, {});
    expect(rerun.status).toBe(202);
    const rerunId = rerun.body.id as string;
    expect(await harness.fleet.store.getRun(rerunId)).toMatchObject({ prompt: original.prompt, model: original.model, rerunOf: runId });
    expect((await harness.waitForRun(rerunId, 60_000)).status).toBe('succeeded');
    // The link is archived with the rerun, and the view answers it from history too.
    expect(await archiveFinishedRun(archiveDependencies(1), rerunId)).toBe('archived');
    expect(await history.getRun(rerunId)).toMatchObject({ rerunOf: runId });
    for (let attempt = 0; (await harness.fleet.redis.exists(harness.fleet.store.keys.run(rerunId))) === 1; attempt += 1) {
      if (attempt > 3_000) throw new Error(`the keys of ${rerunId} did not expire`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const view = (await (await fetch(`${harness.apiUrl}/v1/runs/${rerunId}`, { headers: { authorization: `Bearer ${harness.apiKey}` } })).json()) as Record<string, unknown>;
    expect(view).toMatchObject({ id: rerunId, status: 'succeeded', rerunOf: runId });
  });
});
