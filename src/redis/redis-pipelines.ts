// Pipelines that hold on a cluster too. A cluster takes a pipeline only when every key in it is
// served by one node (ioredis: "All keys in the pipeline should belong to the same slots
// allocation group"), so a read of many runs — each run in a slot of its own — is sent as one
// pipeline per run, all at once: the same round trip time, one reply per run.
import type { ChainableCommander } from 'ioredis';
import { isCluster, type RedisClient } from './redis-connection.js';

/** The replies of a pipeline of `count` commands; the first command error is thrown, as a single
 * command's would be (ioredis resolves exec with an [error, reply] pair per command). */
export async function execPipeline(pipeline: ChainableCommander, count: number): Promise<unknown[]> {
  const results = (await pipeline.exec()) ?? [];
  if (results.length !== count) throw new Error(`A pipeline of ${count} commands answered ${results.length} replies`);
  return results.map(([error, reply]) => {
    if (error) throw error;
    return reply;
  });
}

/**
 * One reply per item: `read` queues exactly one command for its item (whose keys share a slot).
 * One pipeline on one server; on a cluster, one per item, sent together. The first command error
 * is thrown.
 */
export async function readEach<T>(client: RedisClient, items: readonly T[], read: (pipeline: ChainableCommander, item: T) => void): Promise<unknown[]> {
  return (await readEachSettled(client, items, read)).map(([error, reply]) => {
    if (error) throw error;
    return reply;
  });
}

/** readEach, with each item's [error, reply] kept (a key of the wrong type fails its item only). */
export async function readEachSettled<T>(
  client: RedisClient,
  items: readonly T[],
  read: (pipeline: ChainableCommander, item: T) => void,
): Promise<Array<[Error | null, unknown]>> {
  if (items.length === 0) return [];
  const settle = async (pipeline: ChainableCommander, count: number) => {
    const results = (await pipeline.exec()) ?? [];
    if (results.length !== count) throw new Error(`A pipeline of ${count} commands answered ${results.length} replies`);
    return results;
  };
  if (!isCluster(client)) {
    const pipeline = client.pipeline();
    for (const item of items) read(pipeline, item);
    return settle(pipeline, items.length);
  }
  return Promise.all(
    items.map(async (item) => {
      const pipeline = client.pipeline();
      read(pipeline, item);
      const [result] = await settle(pipeline, 1);
      return result!;
    }),
  );
}
