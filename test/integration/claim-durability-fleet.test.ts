// A build with BUILDFLEET_REDIS_WAIT_REPLICAS=1 on a server without a replica: the first answer
// that calls a write tool is committed, but its calls are not handed out, since the answer is on no
// replica (a failover could lose it, and the resumed turn would make the calls again under new
// ids). No write tool runs; the model job retries, saying why. On the suite's cluster every primary
// has a replica, so the same builds go through (queue-shards and fleet-build tests there).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIds } from '../../src/jobs/job-catalog.js';
import { WRITE_TOOLS, type ToolName } from '../../src/domain/profile.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';
import { until } from '../support/until.js';

const onCluster = Boolean(process.env.BUILDFLEET_REDIS_CLUSTER_NODES);
let harness: InProcessFleet | undefined;

beforeAll(async () => {
  if (onCluster) return;
  harness = await startInProcessFleet({
    label: 'claimwaitfleet',
    env: { BUILDFLEET_REDIS_WAIT_REPLICAS: '1', BUILDFLEET_REDIS_WAIT_TIMEOUT_MS: '50', BUILDFLEET_RETRY_BASE_MS: '50', BUILDFLEET_REAPER_INTERVAL_MS: '0' },
  });
});
afterAll(async () => {
  await harness?.close();
});

describe.skipIf(onCluster)('an answer that calls a write tool, on no replica', () => {
  it('is committed but its calls are not handed out, and its job retries saying why', async () => {
    const fleet = harness!;
    const run = await fleet.submit({});
    const store = fleet.fleet.store;
    // The turn whose answer calls a write tool, and its job's failure.
    const { turn, reason } = await until('a model job refused for an answer on no replica', async () => {
      const events = await store.readEvents(run.id);
      const answer = events.find((event) => event.event === 'model-call-end' && Array.isArray(event.tool_uses) && (event.tool_uses as string[]).some((name) => WRITE_TOOLS.has(name as ToolName)));
      if (!answer) return null;
      const job = await fleet.fleet.queues.own.model.getJob(jobIds.modelTurn(run.id, answer.step));
      const failed = job?.failedReason ?? '';
      return failed ? { turn: answer.step, reason: failed } : null;
    });
    expect(reason).toMatch(/0 of 1 replicas acknowledged/);
    // Committed once: the job's next attempt replays the answer, it never asks the model again.
    await until('the job’s second attempt', async () => ((await fleet.fleet.queues.own.model.getJob(jobIds.modelTurn(run.id, turn)))?.attemptsMade ?? 0) >= 2);
    const events = await store.readEvents(run.id);
    expect(events.filter((event) => event.event === 'model-call-end' && event.step === turn)).toHaveLength(1);
    // No write tool ran, nor was any of its calls queued.
    // (tool-call-dispatch is written with the answer: the calls it plans, not calls handed out.)
    const writeEvents = events.filter((event) => String(event.event).startsWith('tool-call') && event.event !== 'tool-call-dispatch' && 'tool' in event && WRITE_TOOLS.has(event.tool as ToolName));
    expect(events.some((event) => event.event === 'tool-call-dispatch' && WRITE_TOOLS.has(event.tool as ToolName))).toBe(true);
    expect(writeEvents, JSON.stringify(writeEvents)).toEqual([]);
    const toolJobs = await fleet.fleet.queues.own.tool.getJobs(['waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized', 'waiting-children']);
    expect(toolJobs.filter((job) => job.data.runId === run.id && WRITE_TOOLS.has(job.data.name as ToolName))).toEqual([]);
  }, 120_000);
});
