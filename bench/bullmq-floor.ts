// BullMQ's own floor, for comparison with a fleet turn: what two queues cost with no fleet code.
//
//   ping-pong  worker A's job adds a job to queue B; worker B's job adds the next job to A.
//   flow       worker A's job adds a flow: the next A job as parent, one child in queue B — the
//              shape of a fleet turn (next model turn waiting for its tool call). The child
//              completes, the parent moves to wait, worker A takes it.
//
// One round trip = one A job + one B job. Both workers run at concurrency 1 in this process, on
// their own connections; measured: the wall time between round trips, the commands and round
// trips this process sent (client side), what the server ran (INFO commandstats), and the CPU
// this process spent.
import { randomBytes } from 'node:crypto';
import { FlowProducer, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { subtractCounts, type RedisCommandCounter, type RedisCommandCounts } from './count-redis-commands.js';
import { commandCalls, commandCallsDelta } from './redis-server-stats.js';

export type BullmqFloorMode = 'ping-pong' | 'flow';

export interface BullmqFloor {
  mode: BullmqFloorMode;
  roundTrips: number;
  /** Wall time of each round trip after the first 10 (warm-up), ms. */
  samplesMs: number[];
  /** Client side, over all round trips. */
  client: RedisCommandCounts;
  /** Server side (commandstats), over all round trips. */
  server: Record<string, number>;
  /** CPU this process spent over all round trips (both workers and the producer live here and
   * nothing else runs): BullMQ's own CPU floor under a fleet turn, before any fleet code. */
  cpuMs: number;
}

const WARM_UP_ROUND_TRIPS = 10;

export async function measureBullmqFloor({
  redisUrl,
  mode,
  roundTrips,
  counter,
  timeoutMs = 60_000,
}: {
  redisUrl: string;
  mode: BullmqFloorMode;
  roundTrips: number;
  counter: RedisCommandCounter;
  timeoutMs?: number;
}): Promise<BullmqFloor> {
  const prefix = `bfbench${randomBytes(3).toString('hex')}`;
  const connection = { url: redisUrl, maxRetriesPerRequest: null } as const;
  const admin = new Redis(redisUrl);
  counter.excludeConnection(admin);
  const queueA = new Queue('a', { connection, prefix });
  const queueB = new Queue('b', { connection, prefix });
  const flows = new FlowProducer({ connection, prefix });
  const jobOptions = { removeOnComplete: 1000, removeOnFail: 1000 };
  const samplesMs: number[] = [];
  let completed = 0;
  let lastAt = 0;
  let finish: () => void = () => undefined;
  let fail: (error: unknown) => void = () => undefined;
  const finished = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  // Called once per round trip, at its end: records the time and says whether to go on.
  const roundTripDone = (): boolean => {
    const now = performance.now();
    if (lastAt > 0) samplesMs.push(now - lastAt);
    lastAt = now;
    completed += 1;
    if (completed >= roundTrips) {
      finish();
      return false;
    }
    return true;
  };
  const workerA = new Worker(
    'a',
    async (job) => {
      const n = Number(job.data.n);
      if (mode === 'flow') {
        // The previous flow's parent ran: that flow's round trip is over.
        if (n > 0 && !roundTripDone()) return;
        await flows.add({
          name: 'a',
          queueName: 'a',
          data: { n: n + 1 },
          opts: jobOptions,
          children: [{ name: 'b', queueName: 'b', data: { n }, opts: jobOptions }],
        });
      } else {
        await queueB.add('b', { n }, jobOptions);
      }
    },
    { connection, prefix, concurrency: 1 },
  );
  const workerB = new Worker(
    'b',
    async (job) => {
      if (mode === 'flow') return;
      if (!roundTripDone()) return;
      await queueA.add('a', { n: Number(job.data.n) + 1 }, jobOptions);
    },
    { connection, prefix, concurrency: 1 },
  );
  workerA.on('failed', (_job, error) => fail(error));
  workerB.on('failed', (_job, error) => fail(error));
  try {
    await Promise.all([workerA.waitUntilReady(), workerB.waitUntilReady(), queueA.waitUntilReady(), queueB.waitUntilReady()]);
    const serverBefore = await commandCalls(admin);
    const clientBefore = counter.snapshot().counted;
    lastAt = performance.now();
    const cpuBefore = process.cpuUsage();
    await queueA.add('a', { n: 0 }, jobOptions);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      finished,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`BullMQ ${mode}: ${completed}/${roundTrips} round trips in ${timeoutMs} ms`)), timeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
    const cpu = process.cpuUsage(cpuBefore);
    const client = subtractCounts({ after: counter.snapshot().counted, before: clientBefore });
    // The INFO that took `serverBefore` is itself in the second reading.
    const server = commandCallsDelta({ after: await commandCalls(admin), before: serverBefore, own: { info: 1 } });
    return { mode, roundTrips: completed, samplesMs: samplesMs.slice(WARM_UP_ROUND_TRIPS), client, server, cpuMs: (cpu.user + cpu.system) / 1000 };
  } finally {
    await Promise.all([workerA.close(true), workerB.close(true)]);
    await Promise.all([queueA.obliterate({ force: true }).catch(() => undefined), queueB.obliterate({ force: true }).catch(() => undefined)]);
    await Promise.all([queueA.close(), queueB.close(), flows.close()]);
    admin.disconnect();
  }
}
