// A private PostgreSQL starts on loopback (as the `postgres` user when we are root), accepts
// connections, and leaves nothing behind once stopped; a kept one (`buildfleet dev`'s) keeps its
// data across starts, a stale postmaster.pid and a server left by a killed starter included.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../cli/spawn-role.js';
import { startPrivatePostgres } from './private-postgres.js';

describe('startPrivatePostgres', () => {
  it('serves on 127.0.0.1 until stopped, then removes its cluster', async () => {
    const server = await startPrivatePostgres();
    const dataDirectory = await (async () => {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      try {
        const settings = await client.query("SELECT current_setting('listen_addresses') AS listen, current_setting('data_directory') AS data");
        expect(settings.rows[0].listen).toBe('127.0.0.1');
        return settings.rows[0].data as string;
      } finally {
        await client.end();
      }
    })();
    expect(existsSync(dataDirectory)).toBe(true);
    await server.stop();
    expect(server.process.exitCode ?? server.process.signalCode).not.toBeNull();
    expect(existsSync(dataDirectory)).toBe(false);
    const late = new pg.Client({ connectionString: server.url, connectionTimeoutMillis: 5_000 });
    late.on('error', () => undefined);
    await expect(late.connect()).rejects.toThrow();
    // stop() twice is harmless (shutdown paths may both call it).
    await server.stop();
  });
});

describe('startPrivatePostgres with a kept directory (`buildfleet dev`)', () => {
  const keptRoot = mkdtempSync(join(tmpdir(), 'buildfleet-kept-postgres-'));
  // As root the server runs as `postgres`, which must pass through this directory (mkdtemp: 0700).
  chmodSync(keptRoot, 0o755);
  const keptDir = join(keptRoot, 'postgres');
  afterAll(() => rmSync(keptRoot, { recursive: true, force: true }));

  async function query(url: string, sql: string): Promise<pg.QueryResultRow[]> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(sql)).rows;
    } finally {
      await client.end();
    }
  }

  it('makes the cluster once and starts the same data again after a stop, the directory kept', async () => {
    const first = await startPrivatePostgres({ keptDir });
    await query(first.url, 'CREATE TABLE kept (value text); INSERT INTO kept VALUES ($$still here$$)');
    await first.stop();
    expect(existsSync(join(keptDir, 'data', 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(keptDir, 'data', 'postmaster.pid'))).toBe(false);
    const second = await startPrivatePostgres({ keptDir });
    try {
      expect(await query(second.url, 'SELECT value FROM kept')).toEqual([{ value: 'still here' }]);
    } finally {
      await second.stop();
    }
  });

  it('starts over a postmaster.pid whose pid now belongs to another process', async () => {
    // This test process: alive, and no PostgreSQL of the directory (as after a crash and pid reuse).
    writeFileSync(join(keptDir, 'data', 'postmaster.pid'), `${process.pid}\n${join(keptDir, 'data')}\n`);
    const server = await startPrivatePostgres({ keptDir });
    try {
      expect(await query(server.url, 'SELECT value FROM kept')).toEqual([{ value: 'still here' }]);
    } finally {
      await server.stop();
    }
  });

  it('stops the server a killed starter left running, then starts on the same data', async () => {
    // A starter of its own, killed with SIGKILL once its server is up: the server outlives it.
    const module = join(PROJECT_ROOT, 'src', 'dev', 'private-postgres.ts');
    const starter = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', `const { startPrivatePostgres } = await import(${JSON.stringify(module)});
        const server = await startPrivatePostgres({ keptDir: ${JSON.stringify(keptDir)} });
        console.log('up ' + server.process.pid);
        setInterval(() => {}, 1000);`],
      { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const serverPid = await new Promise<number>((resolve, reject) => {
      starter.stdout.on('data', (chunk: Buffer) => {
        const match = /up (\d+)/.exec(chunk.toString('utf8'));
        if (match) resolve(Number(match[1]));
      });
      starter.once('exit', (code) => reject(new Error(`the starter exited (${code}) before its server was up`)));
    });
    const starterGone = new Promise((resolve) => starter.once('exit', resolve));
    starter.kill('SIGKILL');
    await starterGone;
    expect(isRunning(serverPid)).toBe(true);
    const server = await startPrivatePostgres({ keptDir });
    try {
      expect(isRunning(serverPid)).toBe(false);
      expect(await query(server.url, 'SELECT value FROM kept')).toEqual([{ value: 'still here' }]);
    } finally {
      await server.stop();
    }
  }, 180_000);
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
