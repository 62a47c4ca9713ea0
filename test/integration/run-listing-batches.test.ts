// GET /v1/runs over a tenant index longer than one read batch (100 entries), with a filter that
// leaves out most of them, so one page needs several batches: every matching run is listed once,
// newest first, none skipped between batches or pages. No history here (DATABASE_URL unset): the
// Redis index alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

let harness: InProcessFleet;

beforeAll(async () => {
  // No workers: the runs stay queued (or end as this test ends them).
  harness = await startInProcessFleet({ label: 'listing-batches', modelWorkers: 0, toolWorkers: 0 });
});
afterAll(async () => {
  await harness?.close();
});

describe('the run listing across index batches', () => {
  it('lists every run that passes a filter once, newest first, through pages that each read several batches', async () => {
    const { store } = harness.fleet;
    const created: string[] = [];
    for (let index = 0; index < 260; index += 1) {
      const run = await store.createRun({ tenant: 'default', prompt: `Run number ${index}`, model: 'claude-sonnet-4-5', maxTurns: 10, maxTokens: 1024, options: {} });
      created.push(run.id);
      // Two in three end cancelled: a listing of queued runs skips them.
      if (index % 3 !== 0) expect(await store.endRun(run.id, 0, 'cancelled', {})).toBe(true);
    }
    const queued = created.filter((_, index) => index % 3 === 0);

    const listed: Array<{ id: string; createdAt: string }> = [];
    let cursor: string | null = null;
    for (let page = 0; page < 20; page += 1) {
      const response = await fetch(`${harness.apiUrl}/v1/runs?status=queued&limit=40${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
        headers: { authorization: `Bearer ${harness.apiKey}` },
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { runs: Array<{ id: string; createdAt: string; status: string }>; nextCursor: string | null };
      for (const run of body.runs) expect(run.status).toBe('queued');
      listed.push(...body.runs);
      cursor = body.nextCursor;
      if (!cursor) break;
    }
    expect(listed.map((run) => run.id).sort()).toEqual([...queued].sort());
    expect(new Set(listed.map((run) => run.id)).size).toBe(listed.length);
    const times = listed.map((run) => Date.parse(run.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });
});
