// `buildfleet dev` prints no secret: the whole command (its role processes, with --verbose so their
// logs are echoed too) against the suite's Redis reached through a URL with a password. Nothing it
// writes to stdout or stderr holds that password or the dev key; the banner says where the key
// is, and the key there works.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { devFleetBanner, runDevCommand } from '../../src/cli/dev-command.js';
import { connectTestRedis, deletePrefix, testRedisUrl, uniquePrefix } from '../support/redis.js';

const PASSWORD = 'dev-secret-password-42';
const prefix = uniquePrefix('devsecrets');
const stateDir = mkdtempSync(join(tmpdir(), 'buildfleet-dev-state-'));

afterAll(async () => {
  rmSync(stateDir, { recursive: true, force: true });
  const redis = connectTestRedis();
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

describe('the dev banner', () => {
  it('names the state file instead of the key, and redacts the Redis and PostgreSQL passwords however short', () => {
    const lines = devFleetBanner({ redisUrl: 'redis://:pw@h:1', redisClusterSeeds: null, databaseUrl: 'postgres://u:pg@d:5432/h', simulatorUrl: null, apiUrl: 'http://a', sitesUrl: 'http://s', consoleUrl: 'http://c', stateFile: '/x/dev.json' });
    expect(lines[0]).toBe('redis: redis://:[redacted]@h:1  history: postgres://u:[redacted]@d:5432/h');
    expect(lines.at(-1)).toContain('"devKey" in /x/dev.json');
  });

  it('names a cluster by its seeds, each password redacted', () => {
    const lines = devFleetBanner({ redisUrl: '', redisClusterSeeds: 'redis://:pw@h:1,redis://:pw@h:2', databaseUrl: 'postgres://d:5432/h', simulatorUrl: null, apiUrl: 'http://a', sitesUrl: 'http://s', consoleUrl: 'http://c', stateFile: null });
    expect(lines[0]).toBe('redis: cluster redis://:[redacted]@h:1,redis://:[redacted]@h:2  history: postgres://d:5432/h');
  });
});

describe('buildfleet dev', () => {
  it('prints neither the Redis password nor the dev key, and says where the key is', async () => {
    const redisUrl = new URL(testRedisUrl());
    redisUrl.password = PASSWORD;
    const stateFile = join(stateDir, 'dev.json');
    const stdout = capture();
    const stderr = capture();
    let stop = () => {};
    const untilStopped = new Promise<void>((resolve) => (stop = resolve));
    const finished = runDevCommand(['--verbose'], {
      stdout: stdout.stream,
      stderr: stderr.stream,
      untilStopped,
      fleetOptions: {
        // LOG_LEVEL info: the fleet waits for each worker's "worker started" line, and the echoed
        // logs are part of what must hold no secret.
        env: { REDIS_URL: redisUrl.toString(), BUILDFLEET_PREFIX: prefix, LOG_LEVEL: 'info', ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: '' },
        // A home of its own (its dev.json is stateFile), never the checkout's .buildfleet/.
        homeDir: stateDir,
      },
    });
    let state: { apiUrl: string; devKey: string; redisUrl: string } | null = null;
    try {
      const deadline = Date.now() + 80_000;
      while (!stderr.text().includes('API key (tenant dev')) {
        if (Date.now() > deadline) throw new Error(`dev did not come up:\n${stderr.text().slice(-2000)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      state = JSON.parse(readFileSync(stateFile, 'utf8')) as { apiUrl: string; devKey: string; redisUrl: string };
      // The key in the state file is the one that works.
      const runs = await fetch(`${state.apiUrl}/v1/runs`, { headers: { authorization: `Bearer ${state.devKey}` } });
      expect(runs.status).toBe(200);
      // The run console is up on an origin of its own, and the banner says where (issue #18).
      const consoleUrl = /run console: (http:\/\/\S+?)\/? /.exec(stderr.text())?.[1];
      expect(consoleUrl).toBeDefined();
      expect(new URL(consoleUrl!).origin).not.toBe(new URL(state.apiUrl).origin);
      const page = await fetch(`${consoleUrl}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    } finally {
      stop();
      await finished;
    }
    if (!state) throw new Error('the state file was not read');
    const printed = `${stdout.text()}\n${stderr.text()}`;
    expect(state.devKey).toMatch(/^bf_/);
    expect(printed).not.toContain(PASSWORD);
    expect(printed).not.toContain(state.devKey);
    expect(printed).toContain(`redis: redis://:[redacted]@${redisUrl.host}`);
    expect(printed).toContain(`"devKey" in ${stateFile}`);
    expect(stdout.text().trim()).toBe(state.apiUrl);
    // The roles' own logs were echoed (--verbose), so they were checked too.
    expect(stderr.text()).toContain('worker started');
  }, 120_000);
});
