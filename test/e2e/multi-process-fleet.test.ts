// Two model workers and two tool workers as separate processes share 20 concurrent runs.
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/cli/api-client.js';
import { useDevFleet } from '../support/dev-fleet.js';
import { connectTestRedis } from '../support/redis.js';

const handle = useDevFleet({ label: 'multi', modelWorkers: 2, toolWorkers: 2 });

describe('a fleet of separate processes', () => {
  it('runs 20 concurrent builds to success across 2 model and 2 tool workers', async () => {
    const client = new ApiClient(handle.fleet.apiUrl, handle.fleet.apiKey);
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        client.request<{ id: string }>('POST', '/v1/runs', { prompt: `Build site number ${index} for a bakery.` }),
      ),
    );
    const deadline = Date.now() + 90_000;
    const finals = new Map<string, { status: string }>();
    while (finals.size < created.length && Date.now() < deadline) {
      for (const { id } of created) {
        if (finals.has(id)) continue;
        const view = await client.request<{ status: string }>('GET', `/v1/runs/${id}`);
        if (['succeeded', 'failed', 'refused', 'cancelled'].includes(view.status)) finals.set(id, view);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect([...finals.values()].map((view) => view.status)).toEqual(Array(20).fill('succeeded'));

    const redis = connectTestRedis();
    try {
      for (const queueName of ['model', 'tool']) {
        const queue = new Queue(queueName, { connection: redis, prefix: `{${handle.prefix}}` });
        const jobs = await queue.getJobs(['completed'], 0, 5000);
        const processors = new Set(jobs.map((job) => job.processedBy?.split(':').slice(0, 2).join(':')));
        expect(processors.size, `${queueName} jobs were processed by ${[...processors].join(', ')}`).toBe(2);
        await queue.close();
      }
    } finally {
      redis.disconnect();
    }
  }, 120_000);
});
