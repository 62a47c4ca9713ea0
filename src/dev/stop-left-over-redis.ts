// A redis-server a killed `buildfleet dev` left running: SIGKILL ends the dev process and not its
// children, so the server still serves the home's AOF on the kept port. Started beside it, a new
// server would append to the same AOF; it is shut down first (SHUTDOWN flushes the AOF). Only a
// server that says its directory is ours is touched.
import { realpathSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';

/** How long the left-over server may take to exit once told to. */
const EXIT_WITHIN_MS = 30_000;

function connect(port: number): Redis {
  const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 5_000 });
  // A refused connection (nothing left over) is reported by connect() itself.
  client.on('error', () => undefined);
  return client;
}

async function answers(port: number): Promise<boolean> {
  const client = connect(port);
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** Shuts down the redis-server on 127.0.0.1:port when its directory is dataDir; true if it did. */
export async function stopLeftOverRedis({ port, dataDir }: { port: number; dataDir: string }): Promise<boolean> {
  let ours: string;
  try {
    ours = realpathSync(dataDir);
  } catch {
    return false;
  }
  const client = connect(port);
  try {
    await client.connect();
    const reply = (await client.config('GET', 'dir')) as unknown;
    const directory = Array.isArray(reply) ? reply[1] : undefined;
    if (typeof directory !== 'string' || directory !== ours) return false;
    // The server closes the connection as it exits, so the command never answers.
    await client.call('SHUTDOWN').catch(() => undefined);
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
  const started = Date.now();
  while (await answers(port)) {
    if (Date.now() - started > EXIT_WITHIN_MS) throw new Error(`the redis-server left on port ${port} (${ours}) did not exit when told to`);
    await sleep(100);
  }
  return true;
}
