// A redis-server serving the home's AOF directory on the kept port is shut down (a killed dev left
// it); one serving another directory is left alone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startPrivateRedis } from './private-redis.js';
import { stopLeftOverRedis } from './stop-left-over-redis.js';

const directory = mkdtempSync(join(tmpdir(), 'buildfleet-left-over-redis-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('stopLeftOverRedis', () => {
  it('shuts down the server of the given directory only', async () => {
    const server = await startPrivateRedis({ dataDir: join(directory, 'redis') });
    const exited = new Promise<number | null>((resolve) => server.process.once('exit', (code) => resolve(code)));
    try {
      expect(await stopLeftOverRedis({ port: server.port, dataDir: join(directory, 'elsewhere') })).toBe(false);
      expect(server.process.exitCode).toBeNull();
      expect(await stopLeftOverRedis({ port: server.port, dataDir: join(directory, 'redis') })).toBe(true);
      // SHUTDOWN is a clean exit.
      expect(await exited).toBe(0);
      // Nothing on the port any more: nothing to stop.
      expect(await stopLeftOverRedis({ port: server.port, dataDir: join(directory, 'redis') })).toBe(false);
    } finally {
      await server.stop();
    }
  });
});
