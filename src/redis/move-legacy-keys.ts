// Keys renamed for Redis Cluster (a hash tag added so one script may use them together) keep their
// data on the servers that held them under the old names: each old key still there is renamed
// once, in one script, so processes starting together move it exactly once and a process of the
// new version never reads an empty new key beside a full old one. Skipped on a cluster: the old
// names never ran there (the fleet did not support Cluster before the tags).
import { isCluster, type RedisClient } from './redis-connection.js';

const MOVE_SCRIPT = `
local moved = 0
for index = 1, #KEYS, 2 do
  if redis.call('EXISTS', KEYS[index]) == 1 and redis.call('EXISTS', KEYS[index + 1]) == 0 then
    redis.call('RENAME', KEYS[index], KEYS[index + 1])
    moved = moved + 1
  end
end
return moved`;

/** Renames each `from` that exists to its `to` when `to` does not; returns how many moved. */
export async function moveLegacyKeys(client: RedisClient, moves: ReadonlyArray<readonly [from: string, to: string]>): Promise<number> {
  if (isCluster(client) || moves.length === 0) return 0;
  return Number(await client.eval(MOVE_SCRIPT, moves.length * 2, ...moves.flat()));
}
