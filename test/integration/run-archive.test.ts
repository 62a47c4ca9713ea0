// Archiving finished runs through the real archive queue: a real build (simulator over HTTP via the
// SDK, real Redis, real workers) ends, its archive job writes its whole history to a real
// PostgreSQL, a re-delivered job writes nothing twice, and the retention lets every Redis key of
// the run expire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueueEvents, type Worker } from 'bullmq';
import { HistoryStore } from '../../src/history/history-store.js';
import { startArchiveWorker, type ArchiveOutcome } from '../../src/workers/archive-worker.js';
import { ARCHIVE_QUEUE_NAME, jobIds, type ArchiveJobData } from '../../src/jobs/job-catalog.js';
import { connectTestRedis } from '../support/redis.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { runKeysLeft, waitForRunKeysToExpire } from '../support/run-keys.js';

const RETENTION_MS = 3_600_000;

let harness: InProcessFleet;
let database: TestDatabase;
let history: HistoryStore;
let archiveWorker: Worker<ArchiveJobData>;
let queueEvents: QueueEvents;

beforeAll(async () => {
  harness = await startInProcessFleet({ label: 'archive' });
  database = await createTestDatabase('archive');
  history = new HistoryStore(database.pool);
  archiveWorker = startArchiveWorker(harness.fleet, { history, retentionMs: RETENTION_MS });
  queueEvents = new QueueEvents(ARCHIVE_QUEUE_NAME, { connection: connectTestRedis(), prefix: harness.fleet.queues.own.keys.queuePrefix });
  await queueEvents.waitUntilReady();
});
afterAll(async () => {
  await archiveWorker?.close();
  await queueEvents?.close();
  await harness?.close();
  await database?.drop();
});

/** Enqueues the run's archive job and waits for that job to finish (its return value, or its failure). */
async function archive(runId: string): Promise<ArchiveOutcome> {
  const jobId = jobIds.archive(runId);
  const done = new Promise<ArchiveOutcome>((resolve, reject) => {
    const onCompleted = ({ jobId: id, returnvalue }: { jobId: string; returnvalue: unknown }) => {
      if (id !== jobId) return;
      cleanUp();
      resolve((returnvalue as { outcome: ArchiveOutcome }).outcome);
    };
    const onFailed = ({ jobId: id, failedReason }: { jobId: string; failedReason: string }) => {
      if (id !== jobId) return;
      cleanUp();
      reject(new Error(failedReason));
    };
    const cleanUp = () => {
      queueEvents.off('completed', onCompleted);
      queueEvents.off('failed', onFailed);
    };
    queueEvents.on('completed', onCompleted);
    queueEvents.on('failed', onFailed);
  });
  await harness.fleet.queues.own.enqueueArchive(runId);
  return done;
}

async function rowCounts(runId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ['runs', 'turns', 'tool_calls', 'events', 'transcripts']) {
    const column = table === 'runs' ? 'id' : 'run_id';
    const result = await database.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`, [runId]);
    counts[table] = (result.rows[0] as { n: number }).n;
  }
  return counts;
}

const runKeys = (runId: string) => runKeysLeft({ redis: harness.fleet.redis, keys: harness.fleet.store.keys, runId });

describe('archiving a finished run', () => {
  it('writes a build’s whole history once, then lets its Redis keys expire', async () => {
    const created = await harness.submit({ prompt: 'Build a small bakery website.' });
    const run = await harness.waitForRun(created.id);
    expect(run.status).toBe('succeeded');
    const store = harness.fleet.store;
    const events = await store.readEvents(run.id, '-', 10_000);
    const messages = await store.getMessages(run.id);

    expect(await archive(run.id)).toBe('archived');

    const archived = await history.getRun(run.id, run.tenant);
    expect(archived).toMatchObject({
      id: run.id,
      tenant: run.tenant,
      status: 'succeeded',
      prompt: 'Build a small bakery website.',
      turns: run.turn,
      usage: run.usage,
      costMicroUsd: run.costMicroUsd,
      result: run.result,
      liveDeploy: run.liveDeploy,
      createdAt: run.createdAt,
      endedAt: run.updatedAt,
    });
    const counts = await rowCounts(run.id);
    expect(counts.runs).toBe(1);
    expect(counts.turns).toBeGreaterThan(3);
    expect(counts.events).toBe(events.length);
    expect(counts.transcripts).toBe(1);
    // Every tool_use of the transcript is a call, with its ledger entry as its result.
    const toolUses = messages.flatMap((message) => ((message as { role: string; content: unknown }).role === 'assistant' && Array.isArray((message as { content: unknown[] }).content) ? (message as { content: Array<{ type: string; id?: string }> }).content : []).filter((block) => block.type === 'tool_use'));
    expect(counts.tool_calls).toBe(new Set(toolUses.map((block) => block.id)).size);
    const calls = await database.pool.query('SELECT tool_use_id, status, result FROM tool_calls WHERE run_id = $1', [run.id]);
    for (const call of calls.rows as Array<{ tool_use_id: string; status: string; result: unknown }>) {
      expect(call.result).toEqual(await store.getStoredToolResult(run.id, call.tool_use_id));
    }
    expect(calls.rows.some((call) => (call as { status: string }).status === 'ok')).toBe(true);
    const transcript = await database.pool.query('SELECT messages FROM transcripts WHERE run_id = $1', [run.id]);
    expect((transcript.rows[0] as { messages: unknown }).messages).toEqual(messages);
    const turnSum = await database.pool.query('SELECT sum(cost_micro_usd)::bigint AS cost FROM turns WHERE run_id = $1', [run.id]);
    expect(Number((turnSum.rows[0] as { cost: string }).cost)).toBe(run.costMicroUsd);
    const eventOrder = await database.pool.query('SELECT stream_id FROM events WHERE run_id = $1 ORDER BY position', [run.id]);
    expect(eventOrder.rows.map((row) => (row as { stream_id: string }).stream_id)).toEqual(events.map((event) => event.id));

    // Retention started: the record says when it was archived, and every key of the run expires
    // within the retention (none is left without a TTL).
    expect(await harness.fleet.redis.hget(store.keys.run(run.id), 'archivedAt')).toMatch(/^\d{4}-\d\d-\d\dT/);
    const keys = await runKeys(run.id);
    expect(keys.length).toBeGreaterThan(5);
    for (const key of keys) {
      const ttl = await harness.fleet.redis.pttl(key);
      expect(ttl, key).toBeGreaterThan(0);
      expect(ttl, key).toBeLessThanOrEqual(RETENTION_MS);
    }

    // Listed from history from now on: the tenant's Redis index, which would otherwise keep an
    // entry per run forever, no longer holds it.
    expect(await harness.fleet.redis.zscore(store.keys.runsByTenant(run.tenant), run.id)).toBeNull();

    // A re-delivered archive job (same job id, the first one completed) writes nothing twice.
    const before = await database.pool.query('SELECT xmin::text AS version FROM runs WHERE id = $1', [run.id]);
    expect(await archive(run.id)).toBe('already-archived');
    expect(await rowCounts(run.id)).toEqual(counts);
    const after = await database.pool.query('SELECT xmin::text AS version FROM runs WHERE id = $1', [run.id]);
    expect(after.rows).toEqual(before.rows);

    // A retention that passes: every key of the run is gone from Redis, the history stays.
    expect(await store.expireArchivedRun(run.id, 1)).toBe('expiring');
    await waitForRunKeysToExpire({ redis: harness.fleet.redis, keys: store.keys, runId: run.id });
    expect(await store.getRun(run.id)).toBeNull();
    expect(await history.getRun(run.id)).toMatchObject({ id: run.id, status: 'succeeded' });
    // A job delivered after the keys expired finds nothing to archive and writes nothing.
    expect(await archive(run.id)).toBe('missing');
    expect(await rowCounts(run.id)).toEqual(counts);
  });

  it('refuses to archive or expire a run that has not ended', async () => {
    const store = harness.fleet.store;
    const created = await store.createRun({ tenant: 'default', prompt: 'not yet', model: harness.config.BUILDFLEET_MODEL, maxTurns: 5, maxTokens: 1024, options: {} });
    expect(await store.readRunForArchive(created.id)).toBe('live');
    expect(await store.expireArchivedRun(created.id, 1000)).toBe('live');
    expect(await harness.fleet.redis.pttl(store.keys.run(created.id))).toBe(-1);
    expect(await store.readRunForArchive('run_doesnotexist0')).toBeNull();
    expect(await store.expireArchivedRun('run_doesnotexist0', 1000)).toBe('missing');
  });
});
