// Every finished run is archived with no manual step, and its retention keeps its site serving
// (issue #21): real builds through the real queues (simulator over HTTP via the SDK, real Redis,
// real workers, the real API and sites origin over loopback sockets) into a real PostgreSQL.
//   - a build ends, is archived by the fleet's own worker, its Redis keys are gone after a 1 s
//     retention, the `runs` row is there, and its published site still serves;
//   - a run whose archive enqueue was lost (no observer wired; a process that died between the end
//     and its bookkeeping) is archived by the sweep;
//   - a deployment snapshotted into Redis before the site store existed survives the retention.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { HistoryStore } from '../../src/history/history-store.js';
import { RunReaper } from '../../src/workers/run-reaper.js';
import { startArchiving } from '../../src/workers/start-archiving.js';
import { writeWorkspaceFile } from '../../src/engine/index.js';
import { siteStoreOf } from '../../src/sites/site-store-of-config.js';
import type { InProcessFleet } from '../support/in-process-fleet.js';
import { startInProcessFleet } from '../support/in-process-fleet.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { until } from '../support/until.js';
import { runKeysLeft } from '../support/run-keys.js';
import { seedDeployment } from '../support/seed-deployment.js';

const silent = pino({ level: 'silent' });


/** Every key of the run still in Redis. */
function runKeys(harness: InProcessFleet, runId: string): Promise<string[]> {
  return runKeysLeft({ redis: harness.fleet.redis, keys: harness.fleet.store.keys, runId });
}

async function unarchived(harness: InProcessFleet, runId: string): Promise<boolean> {
  return (await harness.fleet.redis.zscore(harness.fleet.store.keys.unarchivedRuns(), runId)) !== null;
}

describe('archiving with retention, wired as the fleet runs it', () => {
  let harness: InProcessFleet;
  let database: TestDatabase;
  let history: HistoryStore;

  beforeAll(async () => {
    database = await createTestDatabase('archiving');
    history = new HistoryStore(database.pool);
    harness = await startInProcessFleet({ label: 'archiving', env: { DATABASE_URL: database.url, BUILDFLEET_RUN_RETENTION_SECONDS: '1' } });
  });
  afterAll(async () => {
    await harness?.close();
    await database?.drop();
  });

  it('archives a build that ends, lets its keys expire after the retention, and keeps its published site serving', async () => {
    const created = await harness.submit({ prompt: 'Build a small bakery website.' });
    const run = await harness.waitForRun(created.id, 120_000);
    expect(run.status).toBe('succeeded');
    expect(run.liveDeploy).not.toBeNull();
    const page = await (await fetch(`${harness.sitesUrl}/sites/${run.id}/`)).text();
    expect(page).toContain('<html');

    // No manual step: the end enqueued the archive, the fleet's archive worker wrote it.
    const row = await until('the runs row', () => history.getRun(run.id));
    expect(row).toMatchObject({ id: run.id, status: 'succeeded', liveDeploy: run.liveDeploy });
    await until('every Redis key of the run to expire', async () => (await runKeys(harness, run.id)).length === 0);
    expect(await harness.fleet.store.getRun(run.id)).toBeNull();
    expect(await unarchived(harness, run.id)).toBe(false);

    // The published site, from the store alone, on the sites origin over a real socket: the live
    // deployment's page (its body as deployed; the head may differ by the set_meta tags injected
    // into it, which docs/sites.md#storage describes apart).
    const deployed = await siteStoreOf(harness.config).readDeploymentFile({ runId: run.id, deployId: run.liveDeploy!, path: 'index.html' });
    const body = /<body>[\s\S]*<\/body>/.exec(deployed ?? '')?.[0];
    expect(body).toContain('<h1>');
    const after = await fetch(`${harness.sitesUrl}/sites/${run.id}/`);
    expect(after.status).toBe(200);
    expect(after.headers.get('content-security-policy')).toMatch(/^sandbox allow-scripts/);
    expect(await after.text()).toContain(body);
  });

  it('writes the published pointer only Redis holds (a publish that died before the store’s) before the retention, so the site survives it', async () => {
    const { store } = harness.fleet;
    const run = await store.createRun({ tenant: 'default', prompt: 'Build a bakery page', model: 'claude-sonnet-4-5', maxTurns: 10, maxTokens: 1024, options: {} });
    const html = '<!doctype html><html><head></head><body><h1>bakery</h1></body></html>';
    expect(await writeWorkspaceFile({ engine: store, runId: run.id, path: 'index.html', content: html })).toBe('ok');
    expect(await writeWorkspaceFile({ engine: store, runId: run.id, path: 'css/site.css', content: 'h1{color:brown}' })).toBe('ok');
    // Deployed as deploy does; published in Redis only (the run's live deployment), as a publish
    // that died before writing the store's pointer leaves it.
    const sites = siteStoreOf(harness.config);
    expect(await seedDeployment({ engine: store, sites, runId: run.id, deployId: 'dep_kept' })).toMatchObject({ created: true });
    expect(await store.updateRun(run.id, { liveDeploy: 'dep_kept' })).toBe(true);
    expect(await sites.readPublished(run.id)).toBeNull();
    expect(await (await fetch(`${harness.sitesUrl}/sites/${run.id}/`)).text()).toBe(html);

    expect(await store.endRun(run.id, 0, 'succeeded', { result: 'published' })).toBe(true);
    await until('the runs row', () => history.getRun(run.id));
    await until('every Redis key of the run to expire', async () => (await runKeys(harness, run.id)).length === 0);

    expect(await sites.deploymentPaths({ runId: run.id, deployId: 'dep_kept' })).toEqual(['css/site.css', 'index.html']);
    expect(await sites.readPublished(run.id)).toMatchObject({ deployId: 'dep_kept' });
    const live = await fetch(`${harness.sitesUrl}/sites/${run.id}/`);
    expect(live.status).toBe(200);
    expect(await live.text()).toBe(html);
    expect(await (await fetch(`${harness.sitesUrl}/sites/${run.id}/d/dep_kept/css/site.css`)).text()).toBe('h1{color:brown}');
  });
});

describe('the archive sweep', () => {
  let harness: InProcessFleet;
  let database: TestDatabase;
  let history: HistoryStore;

  beforeAll(async () => {
    database = await createTestDatabase('sweep');
    history = new HistoryStore(database.pool);
    // History configured, but nothing archives on its own: no enqueue at run end, no worker.
    harness = await startInProcessFleet({ label: 'sweep', env: { DATABASE_URL: database.url }, archive: false });
  });
  afterAll(async () => {
    await harness?.close();
    await database?.drop();
  });

  it('archives a run whose end was never followed by an archive enqueue, and one whose process died before its end’s bookkeeping', async () => {
    const { store } = harness.fleet;
    const queues = harness.fleet.queues.own;
    const first = await harness.waitForRun((await harness.submit({})).id, 120_000);
    const second = await harness.waitForRun((await harness.submit({})).id, 120_000);
    expect(first.status).toBe('succeeded');
    // The end recorded both in the unarchived index, and no archive job exists: the enqueue was lost.
    expect(await unarchived(harness, first.id)).toBe(true);
    expect(await queues.archiveJob(first.id)).toEqual({ state: 'unknown', finishedOn: null });

    // The second run's process "died" between its ending script and the bookkeeping after it: it
    // is still in the live-run index and not in the unarchived one.
    await harness.fleet.redis.zrem(store.keys.unarchivedRuns(), second.id);
    await harness.fleet.redis.zadd(store.keys.liveRuns(), Date.now(), second.id);
    const reaper = new RunReaper({ store, queues: harness.fleet.queues, logger: silent }, { intervalMs: 0, graceMs: 60_000, maxRecoveries: 3 });
    const reaped = await reaper.sweepLocked();
    expect(reaped.skipped).toBeNull();
    expect(await unarchived(harness, second.id)).toBe(true);
    expect(await harness.fleet.redis.zscore(store.keys.liveRuns(), second.id)).toBeNull();

    // The archive worker and sweep start (as a tool worker process would); the sweep's timer is off
    // and its grace 0, so this test's own sweep does the work.
    const archiving = startArchiving(harness.fleet, { history, retentionMs: 3_600_000, sweepIntervalMs: 0 });
    try {
      const report = await archiving.sweeper.sweepLocked();
      expect(report.skipped).toBeNull();
      expect(report.enqueued).toEqual(expect.arrayContaining([first.id, second.id]));
      for (const run of [first, second]) {
        const row = await until(`the runs row of ${run.id}`, () => history.getRun(run.id));
        expect(row.status).toBe('succeeded');
        await until(`${run.id} off the unarchived index`, async () => !(await unarchived(harness, run.id)));
        // Retention started: the record carries archivedAt and expires.
        expect(await harness.fleet.redis.pttl(store.keys.run(run.id))).toBeGreaterThan(0);
        expect(await harness.fleet.redis.hget(store.keys.run(run.id), 'archivedAt')).not.toBeNull();
      }
      // Nothing is left to sweep: a second sweep enqueues nothing.
      expect((await archiving.sweeper.sweepLocked()).enqueued).toEqual([]);
      expect(await queues.archiveJob(first.id)).toEqual({ state: 'unknown', finishedOn: null });
      // An entry whose run has no record any more (its keys expired before the entry was removed)
      // is dropped by the sweep, not read by every sweep for ever.
      await harness.fleet.redis.zadd(store.keys.unarchivedRuns(), Date.now() - 60_000, 'run_0000000000gone');
      await archiving.sweeper.sweepLocked();
      expect(await unarchived(harness, 'run_0000000000gone')).toBe(false);
    } finally {
      await archiving.close();
    }
  });
});
