// SCAN over the whole keyspace. On a cluster each primary holds its own slots and SCAN walks one
// node only, so a cluster-wide scan walks every primary in turn (ioredis Cluster `nodes('master')`).
import { isCluster, type RedisClient } from './redis-connection.js';

/** Each batch of keys matching `pattern`, from every primary. A key may appear twice when a
 * primary fails over mid-scan (SCAN's own guarantee is "at least once"). */
export async function* scanKeys(client: RedisClient, pattern: string, count = 1000): AsyncGenerator<string[]> {
  const nodes = isCluster(client) ? client.nodes('master') : [client];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      if (keys.length > 0) yield keys;
    } while (cursor !== '0');
  }
}

/** Unlinks every key matching `pattern` on every primary; one UNLINK per key on a cluster, where
 * an UNLINK of keys in several slots is refused (CROSSSLOT). Returns how many it unlinked. */
export async function unlinkKeysMatching(client: RedisClient, pattern: string): Promise<number> {
  let unlinked = 0;
  for await (const keys of scanKeys(client, pattern)) {
    if (isCluster(client)) unlinked += (await Promise.all(keys.map((key) => client.unlink(key)))).reduce((sum, count) => sum + count, 0);
    else unlinked += await client.unlink(...keys);
  }
  return unlinked;
}
