// Counts the commands Lua scripts run on given keys while an action runs, through MONITOR (which
// lists a script's own commands with the source `lua`). Tests use it to state how much work a
// script does — a number of commands, not a duration — on a Redis other test files share: only
// commands naming the keys are kept, and markers bracket the action so no command of it is missed.
//
// MONITOR is read from a raw socket, not ioredis's monitor mode: under the whole suite the stream
// carries every parallel test's traffic, and ioredis hands any line its monitor pattern does not
// match to its command queue ("Command queue state error"). Here each `+<line>\r\n` is parsed on
// its own and a line of no interest is skipped.
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { isCluster, type RedisClient } from '../../src/redis/redis-connection.js';

/** The quoted arguments of one MONITOR line (`<time> [<db> <source>] "CMD" "arg" …`), unescaped
 * enough for the plain keys tests watch. */
function parseMonitorLine(line: string): { source: string; args: string[] } | null {
  const head = /^\d+\.\d+ \[\d+ ([^\]]+)\] /.exec(line);
  if (!head) return null;
  const args = [...line.slice(head[0].length).matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!.replace(/\\(["\\])/g, '$1'));
  return { source: head[1]!, args };
}

/** A key to watch: by its name, or every key whose name starts with `prefix` (the keys under a
 * run, `${keys.run(runId)}:`, whose layout beyond KeySpace is the engine's own). */
export type WatchedKey = string | { prefix: string };

/** The commands (name and arguments) Lua scripts ran on `keys` while `action` ran. */
export async function luaCommandsOnKeys(redis: RedisClient, keys: readonly WatchedKey[], action: () => Promise<unknown>): Promise<string[][]> {
  // MONITOR shows one server's commands, and the markers must reach the server the keys are on.
  if (isCluster(redis)) throw new Error('luaCommandsOnKeys needs one Redis server, not a cluster');
  const named = new Set(keys.filter((key): key is string => typeof key === 'string'));
  const prefixes = keys.flatMap((key) => (typeof key === 'string' ? [] : [key.prefix]));
  const watched = (key: string) => named.has(key) || prefixes.some((prefix) => key.startsWith(prefix));
  const marker = `monitor-marker:${randomBytes(6).toString('hex')}`;
  const seen: string[][] = [];
  let markers = 0;
  let onMarker: (() => void) | null = null;
  const { host = '127.0.0.1', port = 6379, password, username } = redis.options;
  const socket = connect({ host, port });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let buffered = '';
  let monitoring: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    monitoring = resolve;
  });
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    let end: number;
    while ((end = buffered.indexOf('\r\n')) !== -1) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (line === '+OK') {
        monitoring();
        continue;
      }
      if (!line.startsWith('+')) continue;
      const parsed = parseMonitorLine(line.slice(1));
      if (!parsed) continue;
      if (parsed.args[0]?.toLowerCase() === 'echo' && parsed.args[1] === marker) {
        markers += 1;
        onMarker?.();
      } else if (parsed.source === 'lua' && parsed.args[1] !== undefined && watched(parsed.args[1])) {
        seen.push(parsed.args);
      }
    }
  });
  const auth = password ? `AUTH ${username ? `${username} ` : ''}${password}\r\n` : '';
  socket.write(`${auth}MONITOR\r\n`);
  await started;
  const markerSeen = async (count: number) => {
    await redis.echo(marker);
    await new Promise<void>((resolve) => {
      const check = () => {
        if (markers >= count) resolve();
      };
      onMarker = check;
      check();
    });
  };
  try {
    await markerSeen(1);
    const before = seen.length;
    await action();
    await markerSeen(2);
    return seen.slice(before);
  } finally {
    socket.destroy();
  }
}
