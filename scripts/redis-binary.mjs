// Where redis-server lives: REDIS_SERVER_BIN, then PATH, then Debian's location.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Returns the path of a runnable redis-server, or null. */
export function findRedisServer() {
  const candidates = [];
  if (process.env.REDIS_SERVER_BIN) candidates.push(process.env.REDIS_SERVER_BIN);
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    if (directory) candidates.push(join(directory, 'redis-server'));
  }
  candidates.push('/usr/bin/redis-server', '/usr/sbin/redis-server', '/usr/local/bin/redis-server');
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return null;
}
