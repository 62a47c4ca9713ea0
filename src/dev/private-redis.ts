// Starts a private redis-server on a free loopback port, for `buildfleet dev`, the demo, the test
// suite and the benchmarks. Nothing else on the machine is touched; stop() removes the process.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
// @ts-expect-error plain ESM helper shared with the dependency-free setup script
import { findRedisServer } from '../../scripts/redis-binary.mjs';

export interface PrivateRedis {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
  /** Kills the server with SIGKILL and starts it again on the same port and data (AOF). */
  restart(): Promise<void>;
}

/** How every private server runs (one server or a cluster's nodes): AOF with appendfsync everysec,
 * as production is documented to, no RDB snapshots, no eviction, in the foreground, quiet. */
// prettier-ignore
export const DURABLE_SERVER_FLAGS = [
  '--appendonly', 'yes',
  '--appendfsync', 'everysec',
  '--save', '',
  '--maxmemory-policy', 'noeviction',
  '--daemonize', 'no',
  '--loglevel', 'warning',
] as const;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** `count` distinct free ports: every listener is held open until all are chosen, since ports
 * asked for one after another may come back the same once the first is closed (the kernel hands a
 * just-freed ephemeral port out again). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => {
    const address = server.address();
    return typeof address === 'object' && address ? address.port : 0;
  });
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  return ports;
}

async function waitForPing(url: string, deadlineMs: number): Promise<void> {
  const started = Date.now();
  for (;;) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    // Refused connections are expected while the server starts; connect() reports them.
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
      return;
    } catch (error) {
      if (Date.now() - started > deadlineMs) throw new Error(`redis-server at ${url} did not answer: ${String(error)}`);
    } finally {
      client.disconnect();
    }
    await sleep(50);
  }
}

/** Starts redis-server with AOF (appendfsync everysec) in dataDir; resolves once it answers PING. */
export async function startPrivateRedis(options: { dataDir: string; port?: number; quiet?: boolean }): Promise<PrivateRedis> {
  const binary = findRedisServer() as string | null;
  if (!binary) {
    throw new Error('redis-server not found: install it (apt-get install -y redis-server) or set REDIS_URL');
  }
  mkdirSync(options.dataDir, { recursive: true });
  const port = options.port ?? (await freePort());
  const url = `redis://127.0.0.1:${port}`;
  const launch = () =>
    spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--dir', options.dataDir, ...DURABLE_SERVER_FLAGS], {
      stdio: options.quiet === false ? 'inherit' : 'ignore',
    });
  const handle: PrivateRedis = {
    url,
    port,
    process: launch(),
    async stop() {
      const child = handle.process;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5000).then(() => child.kill('SIGKILL'))]);
    },
    async restart() {
      const child = handle.process;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
      handle.process = launch();
      await waitForPing(url, 15_000);
    },
  };
  await waitForPing(url, 15_000);
  return handle;
}
