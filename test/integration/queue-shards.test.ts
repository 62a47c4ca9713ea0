// Queue shards (docs/scaling.md#queue-shards) through the real queues: three shards, each with
// workers of its own; runs assigned to every shard build to the end, each run's jobs stay in its
// shard's queues, and every job was taken by a worker of that shard. In the cluster pass of
// `npm test` the same runs go through a Redis Cluster, each shard's queues in a slot of their own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from 'bullmq';
import { assignQueueShard, queuePrefixOf } from '../../src/domain/queue-shards.js';
import { newRunId } from '../../src/engine/index.js';
import { FleetMetrics } from '../../src/fleet/fleet-metrics.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

const SHARDS = 3;
const RUNS_PER_SHARD = 2;

let harness: InProcessFleet;

beforeAll(async () => {
  harness = await startInProcessFleet({ label: 'shards', env: { BUILDFLEET_QUEUE_SHARDS: String(SHARDS) } });
});
afterAll(async () => {
  await harness?.close();
});

/** Run ids that the fleet's own assignment puts on each shard, RUNS_PER_SHARD each. */
function runIdsPerShard(): string[][] {
  const ids: string[][] = Array.from({ length: SHARDS }, () => []);
  while (ids.some((shard) => shard.length < RUNS_PER_SHARD)) {
    const id = newRunId();
    const shard = ids[assignQueueShard(id, SHARDS)]!;
    if (shard.length < RUNS_PER_SHARD) shard.push(id);
  }
  return ids;
}

describe('three queue shards', () => {
  it('build runs of every shard, each run’s jobs in its own shard and taken only by that shard’s workers', async () => {
    const perShard = runIdsPerShard();
    const shardOfRun = new Map(perShard.flatMap((ids, shard) => ids.map((id) => [id, shard] as const)));
    await Promise.all([...shardOfRun.keys()].map((runId) => harness.submit({ runId })));
    const runs = await Promise.all([...shardOfRun.keys()].map((runId) => harness.waitForRun(runId, 120_000)));
    for (const run of runs) {
      expect(run.status, `${run.id}: ${JSON.stringify(run.error)}`).toBe('succeeded');
      // Recorded on the run, for life.
      expect(run.queueShard).toBe(shardOfRun.get(run.id));
    }

    for (let shard = 0; shard < SHARDS; shard += 1) {
      const queues = harness.fleet.queues.of(shard);
      expect(queues.keys.queuePrefix).toBe(queuePrefixOf(harness.config.BUILDFLEET_PREFIX, shard));
      const jobs: Job[] = [...(await queues.model.getJobs(['completed'], 0, -1)), ...(await queues.tool.getJobs(['completed'], 0, -1))];
      // Each shard ran the turns and tool calls of its own runs, and only those.
      expect(jobs.length).toBeGreaterThan(RUNS_PER_SHARD * 4);
      const runsSeen = new Set(jobs.map((job) => (job.data as { runId: string }).runId));
      expect([...runsSeen].sort()).toEqual([...perShard[shard]!].sort());
      for (const job of jobs) {
        // processedBy is the worker's BullMQ name: host:pid:<role>:shard-<n> (src/workers/worker-fleet.ts shardRole).
        expect(job.processedBy, `${job.queueName} job ${job.id}`).toMatch(new RegExp(`:${job.queueName}:shard-${shard}$`));
      }
    }
  }, 240_000);

  it('lists every shard’s queues on the admin dashboard, each on its own and added up', async () => {
    const response = await fetch(`${harness.apiUrl}/v1/admin/queues`, { headers: { authorization: `Bearer ${harness.apiKey}` } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { queues: Record<string, Record<string, number>>; shards: Array<{ shard: number; queues: Record<string, Record<string, number>>; workers: Record<string, number> }> };
    expect(body.shards.map((entry) => entry.shard)).toEqual([0, 1, 2]);
    // Every shard is served: its own model and tool workers.
    for (const entry of body.shards) {
      expect(entry.workers.model, `shard ${entry.shard}`).toBeGreaterThan(0);
      expect(entry.workers.tool, `shard ${entry.shard}`).toBeGreaterThan(0);
    }
    // The same as a metric, for an alert on a shard left without workers.
    const metrics = new FleetMetrics({ role: 'test', queues: harness.fleet.queues, defaultMetrics: false });
    const text = await metrics.registry.getSingleMetricAsString('buildfleet_queue_workers');
    for (const shard of ['0', '1', '2']) expect(Number(new RegExp(`buildfleet_queue_workers\\{queue="tool",shard="${shard}"[^}]*\\} (\\d+)`).exec(text)?.[1] ?? 0), text).toBeGreaterThan(0);
    const completedModel = body.shards.map((entry) => entry.queues.model!.completed ?? 0);
    expect(completedModel.every((count) => count > 0)).toBe(true);
    expect(body.queues.model!.completed).toBe(completedModel.reduce((sum, count) => sum + count, 0));
  });
});
