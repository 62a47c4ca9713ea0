// The queues' completed-job retention (BUILDFLEET_COMPLETED_JOBS_KEPT): what bounds the memory the
// queues hold once run history lives in PostgreSQL (issue #21). Every model and tool job a build
// enqueues carries the configured count, with the 24 h age limit beside it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

let harness: InProcessFleet;

beforeAll(async () => {
  harness = await startInProcessFleet({ label: 'queue-retention', env: { BUILDFLEET_COMPLETED_JOBS_KEPT: '1500' } });
});
afterAll(async () => {
  await harness?.close();
});

describe('completed-job retention', () => {
  it('gives every model and tool job the configured count and the 24 h age as its completed-job retention (BullMQ trims by them)', async () => {
    const run = await harness.waitForRun((await harness.submit({ prompt: 'Build a small bakery website.' })).id);
    expect(run.status).toBe('succeeded');
    const queues = harness.fleet.queues.own;
    const completed = [...(await queues.model.getJobs(['completed'], 0, 5)), ...(await queues.tool.getJobs(['completed'], 0, 5))];
    expect(completed.some((job) => job.queueName === 'model')).toBe(true);
    expect(completed.some((job) => job.queueName === 'tool')).toBe(true);
    for (const job of completed) expect(job.opts.removeOnComplete, `${job.queueName} ${job.id}`).toEqual({ age: 24 * 3600, count: 1500 });
  });

  it('refuses a count that would trim a successor job before a re-run of its step could find it', () => {
    expect(() => loadConfig({ BUILDFLEET_COMPLETED_JOBS_KEPT: '10' })).toThrow(/BUILDFLEET_COMPLETED_JOBS_KEPT/);
    expect(loadConfig({}).BUILDFLEET_COMPLETED_JOBS_KEPT).toBe(50_000);
  });
});
