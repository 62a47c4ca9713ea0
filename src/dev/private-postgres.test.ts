// A private PostgreSQL starts on loopback (as the `postgres` user when we are root), accepts
// connections, and leaves nothing behind once stopped.
import { existsSync } from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
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
