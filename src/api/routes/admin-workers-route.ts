// GET /v1/admin/workers: the BullMQ workers connected to each of the fleet's queues, for operators
// (the console's admin view shows them). BullMQ knows a worker by the Redis connection it blocks
// on: each worker names that connection `<prefix>:<queue>:w:<name>`, and Queue.getWorkers() reads
// them from CLIENT LIST. So this lists what Redis sees connected right now — a worker that died
// drops out when Redis notices its connection closed — and needs no registry of its own.
import type { Queue } from 'bullmq';
import { z } from 'zod';
import type { FleetContext } from '../../fleet/fleet-context.js';
import { FLEET_QUEUE_NAMES as QUEUES } from '../../jobs/fleet-queues.js';
import { defineRoute } from '../define-route.js';

/** What Queue.getWorkers() returns for one connection: CLIENT LIST's fields as strings. Validated
 * as any read from Redis is; `rawname` is the connection's full name, where the worker's own is. */
const clientEntrySchema = z.looseObject({
  rawname: z.string().min(1),
  addr: z.string().optional(),
  age: z.string().regex(/^\d+$/).optional(),
  idle: z.string().regex(/^\d+$/).optional(),
});

const workerSchema = z
  .object({
    name: z.string().nullable().describe('The name the worker gave itself (the fleet uses `host:pid:role`); null for a worker started without one'),
    address: z.string().nullable().describe('The address its Redis connection comes from, as Redis sees it'),
    connected_seconds: z.int().nullable().describe('How long its connection has been open'),
    idle_seconds: z.int().nullable().describe('Seconds since its connection last sent a command (a worker blocked waiting for a job is idle)'),
  })
  .describe('One worker connected to a queue');

export const queueWorkersSchema = z
  .object({
    queues: z.object(
      Object.fromEntries(QUEUES.map((queue) => [queue, z.array(workerSchema)])) as Record<(typeof QUEUES)[number], z.ZodArray<typeof workerSchema>>,
    ),
  })
  .describe('The workers connected to each queue');

type WorkerView = z.infer<typeof workerSchema>;

/** One connection as the route shows it; null for an entry that is not a worker connection (a
 * provider without CLIENT LIST answers one placeholder entry, which has no name). */
function workerViewOf(entry: unknown): WorkerView | null {
  const parsed = clientEntrySchema.safeParse(entry);
  if (!parsed.success) return null;
  const { rawname, addr, age, idle } = parsed.data;
  const marker = rawname.indexOf(':w:');
  return {
    name: marker >= 0 ? rawname.slice(marker + ':w:'.length) : null,
    address: addr ?? null,
    connected_seconds: age === undefined ? null : Number(age),
    idle_seconds: idle === undefined ? null : Number(idle),
  };
}

async function workersOf(queue: Queue): Promise<WorkerView[]> {
  const entries: unknown[] = await queue.getWorkers();
  return entries.map(workerViewOf).filter((view): view is WorkerView => view !== null);
}

export function adminWorkersRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'GET',
    url: '/v1/admin/workers',
    operationId: 'getQueueWorkers',
    summary: 'Workers per queue',
    description:
      `The BullMQ workers connected to each queue (${QUEUES.join(', ')}) right now, fleet-wide, as Redis ` +
      `sees their connections: name, address, connection age and idle time. Needs the \`admin\` scope.`,
    tags: ['admin'],
    access: 'admin',
    responses: { 200: { description: 'Workers per queue', schema: queueWorkersSchema } },
    errors: [],
    async handler() {
      // Every shard's workers of a queue, one list (each worker names its process and role).
      const lists = await Promise.all(QUEUES.map(async (name) => (await Promise.all(fleet.queues.all().map((shard) => workersOf(shard.queue(name))))).flat()));
      return { queues: Object.fromEntries(QUEUES.map((name, index) => [name, lists[index]])) };
    },
  });
}
