// `npm test`: starts a private redis-server unless REDIS_URL is set, runs the whole vitest suite
// against it, and stops it again whatever the outcome.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPrivateRedis, type PrivateRedis } from '../src/dev/private-redis.js';

let redis: PrivateRedis | null = null;
const dataDir = mkdtempSync(join(tmpdir(), 'buildfleet-test-redis-'));
if (!process.env.REDIS_URL) {
  redis = await startPrivateRedis({ dataDir });
  process.env.REDIS_URL = redis.url;
  console.log(`[test] private redis-server on ${redis.url}`);
}

const vitest = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: process.env,
});
const forward = (signal: NodeJS.Signals) => vitest.kill(signal);
process.on('SIGINT', forward);
process.on('SIGTERM', forward);
const code: number = await new Promise((resolve) => vitest.on('exit', (exitCode) => resolve(exitCode ?? 1)));
await redis?.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(code);
