// Where redis-server (REDIS_SERVER_BIN, then PATH, then Debian's location) and redis-cli live.
import { accessSync, constants } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

/** The first of `candidates`, then `name` on PATH, then `fallbacks`, that is executable, or null. */
function firstExecutable(name, candidates, fallbacks) {
  const all = [...candidates];
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    if (directory) all.push(join(directory, name));
  }
  all.push(...fallbacks);
  for (const candidate of all) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return null;
}

/** Returns the path of a runnable redis-server, or null. */
export function findRedisServer() {
  return firstExecutable('redis-server', process.env.REDIS_SERVER_BIN ? [process.env.REDIS_SERVER_BIN] : [], ['/usr/bin/redis-server', '/usr/sbin/redis-server', '/usr/local/bin/redis-server']);
}

/** Returns the path of a runnable redis-cli, or null. The one beside redis-server comes first so a
 * custom build (REDIS_SERVER_BIN) is driven by its own client; Debian ships it in redis-tools. */
export function findRedisCli() {
  const server = findRedisServer();
  return firstExecutable('redis-cli', server ? [join(dirname(server), 'redis-cli')] : [], ['/usr/bin/redis-cli', '/usr/local/bin/redis-cli']);
}
