// Starts a private PostgreSQL on a free loopback port, for the test suite (and, once history is
// wired, `buildfleet dev`, the demo and the bench), the way private-redis.ts starts redis-server:
// a fresh cluster in a new temporary directory, trust authentication for loopback only, removed
// again by stop(). Nothing else on the machine is touched.
//
// PostgreSQL refuses to run as root ("root" execution of the PostgreSQL server is not permitted),
// so as root initdb and postgres run as the package's `postgres` user: `setpriv` switches user and
// then execs, so the child we hold is the postmaster itself and our signals reach it directly
// (runuser would stay in between as a parent).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freePort } from './private-redis.js';
// @ts-expect-error plain ESM helper shared with the dependency-free setup script
import { findPostgresBinDir } from '../../scripts/postgres-binary.mjs';

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres — the superuser on the maintenance database. */
  url: string;
  port: number;
  process: ChildProcess;
  /** Fast shutdown (SIGINT), then the temporary directory is removed. */
  stop(): Promise<void>;
}

/** How long the server may take to accept connections. Generous on purpose: initdb and the first
 * start on a loaded 2-core machine running the test suite take seconds, not a fixed budget. */
const READY_WITHIN_MS = 120_000;
/** How long a fast shutdown may take before the server is told to stop immediately (SIGQUIT). */
const STOP_WITHIN_MS = 30_000;

export class PostgresUnavailable extends Error {
  readonly code = 'postgres_unavailable';
  constructor(message: string) {
    super(message);
    this.name = 'PostgresUnavailable';
  }
}

interface ServerUser {
  uid: number;
  gid: number;
  /** Prefix that runs a program as this user ([] when we already are a non-root user). */
  command: string[];
}

/** Non-root: ourselves. Root: Debian's `postgres` system user (created by the package). */
function serverUser(): ServerUser {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) return { uid: process.getuid?.() ?? -1, gid: process.getgid?.() ?? -1, command: [] };
  let uid: number;
  let gid: number;
  try {
    uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  } catch {
    throw new PostgresUnavailable('running as root, but there is no `postgres` user to run PostgreSQL as (apt-get install -y postgresql creates it)');
  }
  return { uid, gid, command: ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--init-groups', '--'] };
}

function tail(path: string, lines = 20): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

async function waitUntilReady(url: string, child: ChildProcess, logFile: string): Promise<void> {
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new PostgresUnavailable(`postgres exited while starting (${child.exitCode ?? child.signalCode}):\n${tail(logFile)}`);
    }
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    // Refused connections and "the database system is starting up" are expected until it is ready.
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (error) {
      if (Date.now() - started > READY_WITHIN_MS) {
        throw new PostgresUnavailable(`postgres at ${url} did not accept connections within ${READY_WITHIN_MS} ms: ${String(error)}\n${tail(logFile)}`);
      }
    } finally {
      await client.end().catch(() => undefined);
    }
    await sleep(100);
  }
}

/** Creates a cluster in a new temporary directory and starts postgres on 127.0.0.1; resolves once
 * it accepts connections. */
export async function startPrivatePostgres(options: { quiet?: boolean } = {}): Promise<PrivatePostgres> {
  const binDir = findPostgresBinDir() as string | null;
  if (!binDir) {
    throw new PostgresUnavailable('PostgreSQL was not found: install it (apt-get install -y postgresql) or set DATABASE_URL');
  }
  const user = serverUser();
  const root = mkdtempSync(join(tmpdir(), 'buildfleet-postgres-'));
  const dataDir = join(root, 'data');
  const socketDir = join(root, 'socket');
  const logFile = join(root, 'postgres.log');
  mkdirSync(socketDir);
  closeSync(openSync(logFile, 'a'));
  // initdb wants to own the directory it fills; the server writes its socket and log here too.
  if (user.command.length > 0) for (const path of [root, socketDir, logFile]) chownSync(path, user.uid, user.gid);
  const cleanUp = () => rmSync(root, { recursive: true, force: true });

  const run = (program: string, args: string[]) => {
    const [command, ...prefix] = [...user.command, join(binDir, program)];
    return { command: command!, args: [...prefix, ...args] };
  };
  try {
    const initdb = run('initdb', [
      '--pgdata',
      dataDir,
      '--username',
      'postgres',
      // Trust only for the unix socket (inside our private directory) and loopback TCP: initdb's
      // pg_hba.conf lists local, 127.0.0.1/32 and ::1/128 and nothing else, so no other host
      // is admitted at all.
      '--auth-local',
      'trust',
      '--auth-host',
      'trust',
      '--encoding',
      'UTF8',
      '--locale',
      'C',
      // A throwaway cluster: skipping fsync of the fresh files saves seconds on a busy disk.
      '--no-sync',
    ]);
    execFileSync(initdb.command, initdb.args, { stdio: options.quiet === false ? 'inherit' : 'pipe' });
  } catch (error) {
    cleanUp();
    const detail = error instanceof Error && 'stderr' in error ? String((error as { stderr: unknown }).stderr) : String(error);
    throw new PostgresUnavailable(`initdb failed: ${detail}`);
  }

  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const server = run('postgres', [
    '-D',
    dataDir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `port=${port}`,
    '-c',
    `unix_socket_directories=${socketDir}`,
    // Durability is not wanted from a cluster deleted on stop; these make it fast under tests.
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
    '-c',
    'logging_collector=off',
  ]);
  const logFd = openSync(logFile, 'a');
  const child = spawn(server.command, server.args, {
    stdio: ['ignore', options.quiet === false ? 'inherit' : logFd, options.quiet === false ? 'inherit' : logFd],
  });
  closeSync(logFd);
  // A spawn failure (setpriv or postgres missing) is reported by waitUntilReady as an early exit.
  child.on('error', (error) => {
    writeFileSync(logFile, `spawn failed: ${error.message}\n`, { flag: 'a' });
  });

  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stopped: Promise<void> | null = null;
  const handle: PrivatePostgres = {
    url,
    port,
    process: child,
    stop() {
      stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          // SIGINT is PostgreSQL's "fast shutdown": open transactions are rolled back, clients
          // disconnected. SIGQUIT (immediate) only if that hangs.
          child.kill('SIGINT');
          await Promise.race([exited, sleep(STOP_WITHIN_MS).then(() => child.kill('SIGQUIT'))]);
          await exited;
        }
        cleanUp();
      })();
      return stopped;
    },
  };
  try {
    await waitUntilReady(url, child, logFile);
  } catch (error) {
    await handle.stop();
    throw error;
  }
  return handle;
}
