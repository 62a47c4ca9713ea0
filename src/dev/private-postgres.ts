// Starts a private PostgreSQL on a loopback port, for the test suite, the demo and the bench (a
// fresh cluster in a new temporary directory, removed again by stop()), and for `buildfleet dev`
// (a cluster kept in a directory it names, .buildfleet/postgres: created by initdb the first time,
// started again on the same data every time after, never removed), the way private-redis.ts starts
// redis-server. Trust authentication for loopback only. Nothing else on the machine is touched.
//
// PostgreSQL refuses to run as root ("root" execution of the PostgreSQL server is not permitted),
// so as root initdb and postgres run as the package's `postgres` user: `setpriv` switches user and
// then execs, so the child we hold is the postmaster itself and our signals reach it directly
// (runuser would stay in between as a parent).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freePort } from './private-redis.js';
import { isProcessAlive } from './is-process-alive.js';
// @ts-expect-error plain ESM helper shared with the dependency-free setup script
import { findPostgresBinDir } from '../../scripts/postgres-binary.mjs';

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres — the superuser on the maintenance database. */
  url: string;
  port: number;
  process: ChildProcess;
  /** Fast shutdown (SIGINT), then the temporary directory is removed (a kept cluster stays). */
  stop(): Promise<void>;
}

export interface PrivatePostgresOptions {
  quiet?: boolean;
  /** Keep the cluster here (data/, socket/, postgres.log) across starts instead of in a temporary
   * directory removed on stop: initdb runs only when it holds no cluster yet. */
  keptDir?: string;
  /** The port to listen on (default: a free one). */
  port?: number;
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

interface ClusterPaths {
  /** The directory holding the others; removed on stop unless kept. */
  root: string;
  dataDir: string;
  socketDir: string;
  logFile: string;
  kept: boolean;
}

/** The cluster's directories, made (and as root handed to the server's user) before initdb. */
function prepareDirectories(user: ServerUser, keptDir: string | undefined): ClusterPaths {
  const root = keptDir ?? mkdtempSync(join(tmpdir(), 'buildfleet-postgres-'));
  mkdirSync(root, { recursive: true });
  const paths: ClusterPaths = {
    root,
    dataDir: join(root, 'data'),
    socketDir: join(root, 'socket'),
    logFile: join(root, 'postgres.log'),
    kept: keptDir !== undefined,
  };
  mkdirSync(paths.socketDir, { recursive: true });
  closeSync(openSync(paths.logFile, 'a'));
  // initdb wants to own the directory it fills; the server writes its socket and log here too.
  if (user.command.length > 0) for (const path of [root, paths.socketDir, paths.logFile]) chownSync(path, user.uid, user.gid);
  if (!paths.kept) return paths;
  // As root the server runs as `postgres`, which must reach the kept directory through every
  // directory above it; initdb's own error would only say "Permission denied".
  if (user.command.length > 0) {
    const [command, ...prefix] = user.command;
    try {
      execFileSync(command!, [...prefix, 'test', '-w', root], { stdio: 'ignore' });
    } catch {
      throw new PostgresUnavailable(
        `the postgres user cannot write ${root}: PostgreSQL runs as that user when buildfleet runs as root, ` +
          'so every directory above it must be searchable by others (chmod o+x)',
      );
    }
  }
  // A cluster made by another user (dev run once as root, once not) is refused by the server with
  // a less helpful message.
  if (existsSync(paths.dataDir) && statSync(paths.dataDir).uid !== user.uid) {
    throw new PostgresUnavailable(
      `${paths.dataDir} belongs to uid ${statSync(paths.dataDir).uid}, but PostgreSQL runs as uid ${user.uid} here: ` +
        `start as the user who made it, or remove ${root} (its run history is lost with it)`,
    );
  }
  return paths;
}

/** Runs initdb unless the kept directory holds a cluster already. A kept cluster is made beside
 * its final place and renamed into it, so a start interrupted during initdb leaves no half-made
 * cluster that later starts would take for a real one. */
function initCluster({ paths, user, binDir, quiet }: { paths: ClusterPaths; user: ServerUser; binDir: string; quiet: boolean }): void {
  if (paths.kept && existsSync(join(paths.dataDir, 'PG_VERSION'))) return;
  const target = paths.kept ? `${paths.dataDir}.initdb` : paths.dataDir;
  if (paths.kept) for (const path of [target, paths.dataDir]) rmSync(path, { recursive: true, force: true });
  const [command, ...prefix] = [...user.command, join(binDir, 'initdb')];
  try {
    // prettier-ignore
    execFileSync(command!, [
      ...prefix,
      '--pgdata', target,
      '--username', 'postgres',
      // Trust only for the unix socket (inside our private directory) and loopback TCP: initdb's
      // pg_hba.conf lists local, 127.0.0.1/32 and ::1/128 and nothing else, so no other host
      // is admitted at all.
      '--auth-local', 'trust',
      '--auth-host', 'trust',
      '--encoding', 'UTF8',
      '--locale', 'C',
      // A throwaway cluster: skipping fsync of the fresh files saves seconds on a busy disk. A kept
      // one is written to disk like any other.
      ...(paths.kept ? [] : ['--no-sync']),
    ], { stdio: quiet ? 'pipe' : 'inherit' });
  } catch (error) {
    rmSync(paths.kept ? target : paths.root, { recursive: true, force: true });
    const detail = error instanceof Error && 'stderr' in error ? String((error as { stderr: unknown }).stderr) : String(error);
    throw new PostgresUnavailable(`initdb failed: ${detail}`);
  }
  if (paths.kept) renameSync(target, paths.dataDir);
}

/** Whether pid is a postgres server of dataDir, by its command line (null where /proc is missing). */
function isServerOf(pid: number, dataDir: string): boolean | null {
  let commandLine: string[];
  try {
    commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return isProcessAlive(pid) ? null : false;
  }
  return /(^|\/)postgres$/.test(commandLine[0] ?? '') && commandLine.includes(dataDir);
}

const OWNER_FILE = 'owner.pid';

/** A kept cluster's postmaster.pid left by an earlier start. PostgreSQL itself starts over a file
 * whose process is gone, but not over one whose pid now belongs to another process (pids are
 * reused, in containers soon after a restart): such a file is removed. A server still running on
 * the directory is stopped (fast shutdown) when the process that started it (owner.pid) is gone —
 * it outlived a `dev` that was killed or lost its terminal — and refused while that process lives. */
async function settleEarlierServer(paths: ClusterPaths): Promise<void> {
  const pidFile = join(paths.dataDir, 'postmaster.pid');
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  } catch {
    return;
  }
  const server = Number.isInteger(pid) && pid > 0 ? isServerOf(pid, paths.dataDir) : false;
  if (server === false) {
    rmSync(pidFile, { force: true });
    return;
  }
  let owner: number | null = null;
  try {
    owner = Number(readFileSync(join(paths.root, OWNER_FILE), 'utf8').trim());
  } catch {
    owner = null;
  }
  if (server === null || (owner !== null && owner !== process.pid && isProcessAlive(owner))) {
    throw new PostgresUnavailable(
      `a PostgreSQL (pid ${pid}) still runs on ${paths.dataDir}, started by another process: stop that ` +
        `\`buildfleet dev\` first, or the server itself (kill -INT ${pid}) if none runs`,
    );
  }
  process.kill(pid, 'SIGINT');
  const started = Date.now();
  let quitSent = false;
  while (isProcessAlive(pid)) {
    if (!quitSent && Date.now() - started > STOP_WITHIN_MS) {
      process.kill(pid, 'SIGQUIT');
      quitSent = true;
    }
    await sleep(100);
  }
}

/** Starts postgres on 127.0.0.1 over a cluster in a new temporary directory (or the kept one,
 * made by initdb the first time); resolves once it accepts connections. */
export async function startPrivatePostgres(options: PrivatePostgresOptions = {}): Promise<PrivatePostgres> {
  const binDir = findPostgresBinDir() as string | null;
  if (!binDir) {
    throw new PostgresUnavailable('PostgreSQL was not found: install it (apt-get install -y postgresql) or set DATABASE_URL');
  }
  const user = serverUser();
  const paths = prepareDirectories(user, options.keptDir);
  const { dataDir, socketDir, logFile } = paths;
  const cleanUp = () => {
    if (paths.kept) rmSync(join(paths.root, OWNER_FILE), { force: true });
    else rmSync(paths.root, { recursive: true, force: true });
  };
  initCluster({ paths, user, binDir, quiet: options.quiet !== false });
  if (paths.kept) await settleEarlierServer(paths);

  const port = options.port ?? (await freePort());
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const [command, ...prefix] = [...user.command, join(binDir, 'postgres')];
  // prettier-ignore
  const serverArgs = [
    ...prefix,
    '-D', dataDir,
    '-c', 'listen_addresses=127.0.0.1',
    '-c', `port=${port}`,
    '-c', `unix_socket_directories=${socketDir}`,
    // A commit acknowledged before its WAL is flushed: a machine crash may lose the last moment of
    // history, never corrupt it.
    '-c', 'synchronous_commit=off',
    '-c', 'logging_collector=off',
    // Durability is not wanted from a cluster deleted on stop; these make it fast under tests. A
    // kept cluster keeps them on: without them a machine crash could leave it unreadable.
    ...(paths.kept ? [] : ['-c', 'fsync=off', '-c', 'full_page_writes=off']),
  ];
  const logFd = openSync(logFile, 'a');
  const child = spawn(command!, serverArgs, {
    stdio: ['ignore', options.quiet === false ? 'inherit' : logFd, options.quiet === false ? 'inherit' : logFd],
  });
  closeSync(logFd);
  // A spawn failure (setpriv or postgres missing) is reported by waitUntilReady as an early exit.
  child.on('error', (error) => {
    writeFileSync(logFile, `spawn failed: ${error.message}\n`, { flag: 'a' });
  });
  if (paths.kept) writeFileSync(join(paths.root, OWNER_FILE), `${process.pid}\n`);

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
