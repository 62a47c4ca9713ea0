// `npm test`: checks the dependency rules (scripts/check-dependencies.mjs, docs/architecture.md),
// starts a private redis-server unless REDIS_URL is set and a private PostgreSQL unless DATABASE_URL is, runs the whole vitest suite against it,
// and stops it again whatever the outcome. The dependency check runs on every invocation, targeted
// ones (`npm test -- <path>`) included; the tests still run when it fails, so both results show,
// and the exit code is non-zero when either failed.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPrivateRedis, type PrivateRedis } from '../src/dev/private-redis.js';
import { startPrivatePostgres, type PrivatePostgres } from '../src/dev/private-postgres.js';
import { startLocalRedisCluster, type LocalRedisCluster } from '../src/dev/local-redis-cluster.js';

// A few seconds; before Redis starts, so a layer violation is the first thing on screen.
const dependencyCheck = spawnSync(process.execPath, ['scripts/check-dependencies.mjs'], { stdio: 'inherit' });
const dependenciesPass = dependencyCheck.status === 0;

let redis: PrivateRedis | null = null;
const dataDir = mkdtempSync(join(tmpdir(), 'buildfleet-test-redis-'));
// PostgreSQL (run history) starts beside Redis unless DATABASE_URL is set; each test file that
// needs it creates its own database there (test/support/postgres.ts).
let postgres: PrivatePostgres | null = null;
const [startedRedis, startedPostgres] = await Promise.all([
  process.env.REDIS_URL ? null : startPrivateRedis({ dataDir }),
  process.env.DATABASE_URL
    ? null
    : startPrivatePostgres().catch((error: unknown) => {
        // The history tests then fail, naming DATABASE_URL; every other test runs as before.
        console.error(`[test] no private PostgreSQL: ${error instanceof Error ? error.message : String(error)}`);
        return null;
      }),
]);
if (startedRedis) {
  redis = startedRedis;
  process.env.REDIS_URL = redis.url;
  console.log(`[test] private redis-server on ${redis.url}`);
}
if (startedPostgres) {
  postgres = startedPostgres;
  process.env.DATABASE_URL = postgres.url;
  console.log(`[test] private PostgreSQL on ${postgres.url}`);
}

// BUILDFLEET_TEST_REDIS_CLUSTER=1: a local Redis Cluster (3 primaries, 3 replicas) beside the
// server, and the fleets the tests start run on it (test/support/redis.ts testRedisEnv).
let cluster: LocalRedisCluster | null = null;
const clusterDir = mkdtempSync(join(tmpdir(), 'buildfleet-test-cluster-'));
if (process.env.BUILDFLEET_TEST_REDIS_CLUSTER === '1' && !process.env.BUILDFLEET_REDIS_CLUSTER_NODES) {
  cluster = await startLocalRedisCluster({ dataDir: clusterDir });
  process.env.BUILDFLEET_REDIS_CLUSTER_NODES = cluster.seeds;
  console.log(`[test] local Redis Cluster on ${cluster.seeds}`);
}

const vitest = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: process.env,
});
const forward = (signal: NodeJS.Signals) => vitest.kill(signal);
process.on('SIGINT', forward);
process.on('SIGTERM', forward);
const code: number = await new Promise((resolve) => vitest.on('exit', (exitCode) => resolve(exitCode ?? 1)));
await Promise.all([redis?.stop(), postgres?.stop(), cluster?.stop()]);
rmSync(dataDir, { recursive: true, force: true });
rmSync(clusterDir, { recursive: true, force: true });
if (!dependenciesPass) console.error('[test] the dependency check failed (printed before the tests): npm run depcheck');
process.exit(code !== 0 ? code : dependenciesPass ? 0 : 1);
