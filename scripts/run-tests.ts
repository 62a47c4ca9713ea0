// `npm test`: checks the dependency rules (scripts/check-dependencies.mjs, docs/architecture.md),
// starts a private redis-server unless REDIS_URL is set and a private PostgreSQL unless DATABASE_URL
// is, runs the whole vitest suite against it, and stops them again whatever the outcome. A whole-
// suite run (no arguments) also checks the lock file under npm 10 and 11, type-checks the tree and
// checks the production code's formatting beside the tests, then runs the integration suite again
// on a local Redis Cluster and the whole suite again on the image's Node.js (each described where
// it starts below). The dependency check runs on every invocation, targeted ones (`npm test --
// <path>`) included; the tests still run when a check fails, so every result shows, and the exit
// code is non-zero when any failed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPrivateRedis, type PrivateRedis } from '../src/dev/private-redis.js';
import { startPrivatePostgres, type PrivatePostgres } from '../src/dev/private-postgres.js';
import { startLocalRedisCluster, type LocalRedisCluster } from '../src/dev/local-redis-cluster.js';
import { imageNodeMajor, registryNodeBinary } from './image-node.js';

// A few seconds; before Redis starts, so a layer violation is the first thing on screen.
const dependencyCheck = spawnSync(process.execPath, ['scripts/check-dependencies.mjs'], { stdio: 'inherit' });
const dependenciesPass = dependencyCheck.status === 0;

/** A check that runs beside the tests (its own process), printed once they are done. */
interface BesideCheck {
  label: string;
  mend: string;
  result: Promise<{ passed: boolean; output: string }>;
}

function besideCheck(label: string, mend: string, args: string[]): BesideCheck {
  const result = new Promise<{ passed: boolean; output: string }>((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error) => resolve({ passed: false, output: `${output}[${label}] did not start: ${error.message}\n` }));
    child.on('close', (status) => resolve({ passed: status === 0, output }));
  });
  return { label, mend, result };
}

/** Whole-suite runs (`npm test` with no arguments) get every check; `=1` asks for one in a
 * targeted run, `=0` skips it. */
function wanted(variable: string): boolean {
  return process.env[variable] === '1' || (process.env[variable] !== '0' && process.argv.length <= 2);
}

const besideChecks: BesideCheck[] = [];
// The committed lock file under npm 10 and 11 (scripts/check-lock-file.mjs), as the image's
// `npm ci` reads it. It fetches each npm major through npx (cached after the first run).
if (wanted('BUILDFLEET_TEST_LOCK_CHECK')) besideChecks.push(besideCheck('the lock-file check', 'node scripts/check-lock-file.mjs', ['scripts/check-lock-file.mjs']));
// The type check of everything tsconfig.json includes: src, workers, and the tests, benchmarks and
// scripts that the build (tsconfig.build.json) leaves out, so nothing else ever type-checks them.
if (wanted('BUILDFLEET_TEST_TYPECHECK')) besideChecks.push(besideCheck('the type check', 'npm run typecheck', ['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'tsconfig.json']));
// The formatting of the production code (Prettier, .prettierrc.json): src, workers and console/src
// without the tests, the scope .prettierignore leaves. `npm run format` rewrites what it lists.
if (wanted('BUILDFLEET_TEST_FORMAT_CHECK')) besideChecks.push(besideCheck('the format check', 'npm run format', ['node_modules/prettier/bin/prettier.cjs', '--check', '.']));

// The image's runtime (issue #31): after the passes on this machine's Node.js, the whole suite
// runs again on the Node.js major the Dockerfile's NODE_IMAGE names (scripts/image-node.mjs),
// fetched from the npm registry, unless this Node.js already is that major.
// BUILDFLEET_TEST_IMAGE_NODE_PASS=0 skips it; =1 runs a targeted run's tests on it too.
const imageNodeMajorNumber = ((): number | null => {
  try {
    return imageNodeMajor();
  } catch (error) {
    console.error(`[test] no pass on the image's Node.js: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
})();
const imageNodePass = imageNodeMajorNumber !== null && Number(process.versions.node.split('.')[0]) !== imageNodeMajorNumber && wanted('BUILDFLEET_TEST_IMAGE_NODE_PASS');

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

// The Redis Cluster pass (issue #20, docs/scaling.md#redis-cluster): after the whole suite on one
// server, the integration suite runs again with every fleet the tests start on a local Redis
// Cluster of 3 primaries and 3 replicas (test/support/redis.ts testRedisEnv), queue shards
// included (test/integration/queue-shards.test.ts). Only for the whole suite (`npm test` with no
// arguments); BUILDFLEET_TEST_CLUSTER_PASS=0 skips it. BUILDFLEET_TEST_REDIS_CLUSTER=1 instead
// runs the given tests once, on the cluster.
// Left out of the pass, as they would only repeat the first run: the browser test (its Redis
// traffic is the API's, which the API tests cover on the cluster) and the experiments whose
// fleets run on a private server of their own.
// The integration suite, and the unit tests whose steps differ on a cluster (the kill switch's
// split steps, the write fence, claim durability with a replica, the polling event reader).
const CLUSTER_PASS_PATHS = [
  'test/integration',
  'src/safety',
  'src/tools/workspace',
  'src/tools/ops/claim-durability.test.ts',
  'src/api/events',
  'src/auth',
  'src/redis',
  'src/cli/keys-command.test.ts',
  // One hash tag per pause scope: its scripts must run on a cluster too.
  'src/model/model-call-pause.test.ts',
];
const CLUSTER_PASS_EXCLUDES = [
  'test/integration/console-browser.test.ts',
  'test/integration/cost-experiment.test.ts',
  'test/integration/kill-switch-experiment.test.ts',
  'test/integration/providers-experiment.test.ts',
  // Starts a cluster of its own, whichever pass it is in.
  'test/integration/crash-experiment-cluster.test.ts',
];
const clusterOnly = process.env.BUILDFLEET_TEST_REDIS_CLUSTER === '1' && !process.env.BUILDFLEET_REDIS_CLUSTER_NODES;
const clusterPass = !clusterOnly && process.argv.length <= 2 && process.env.BUILDFLEET_TEST_CLUSTER_PASS !== '0' && !process.env.BUILDFLEET_REDIS_CLUSTER_NODES;
const clusterDir = mkdtempSync(join(tmpdir(), 'buildfleet-test-cluster-'));
// Started beside the first run (a few seconds of its own), ready when the pass begins.
const clusterStart = clusterOnly || clusterPass ? startLocalRedisCluster({ dataDir: clusterDir }) : null;
clusterStart?.catch(() => undefined);
let cluster: LocalRedisCluster | null = null;

/** The failed tests of a pass, from vitest's JSON report: printed again once everything has run,
 * so the end of a long CI log names them (the default reporter prints each failure where it
 * happens, thousands of lines before the end). */
interface FailedTest {
  file: string;
  name: string;
  message: string;
}

function failedTestsOf(reportPath: string): FailedTest[] | null {
  if (!existsSync(reportPath)) return null;
  try {
    const report = JSON.parse(readFileSync(reportPath, 'utf8')) as {
      testResults?: Array<{ name?: string; status?: string; message?: string; assertionResults?: Array<{ fullName?: string; status?: string; failureMessages?: string[] }> }>;
    };
    const failed: FailedTest[] = [];
    for (const file of report.testResults ?? []) {
      const path = (file.name ?? '?').replace(`${process.cwd()}/`, '');
      const tests = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
      for (const test of tests) failed.push({ file: path, name: test.fullName ?? '?', message: firstLine(test.failureMessages?.[0]) });
      // A file that failed outside any test (an import error, a hook that threw).
      if (tests.length === 0 && file.status === 'failed') failed.push({ file: path, name: '(outside its tests: an import or a hook)', message: firstLine(file.message) || "see vitest's output above" });
    }
    return failed;
  } catch {
    return null;
  }
}

function firstLine(text: string | undefined): string {
  return (text ?? '').split('\n').find((line) => line.trim() !== '')?.trim().slice(0, 300) ?? '';
}

const reportDir = mkdtempSync(join(tmpdir(), 'buildfleet-test-report-'));
const summaries: string[] = [];
let reportCount = 0;

function runVitest(label: string, args: string[], env: NodeJS.ProcessEnv, node = process.execPath): Promise<number> {
  const reportPath = join(reportDir, `${(reportCount += 1)}.json`);
  const vitest = spawn(node, ['node_modules/vitest/vitest.mjs', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${reportPath}`, ...args], { stdio: 'inherit', env });
  const forward = (signal: NodeJS.Signals) => vitest.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve) =>
    vitest.on('exit', (exitCode) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      const code = exitCode ?? 1;
      const failed = failedTestsOf(reportPath);
      if (code === 0) summaries.push(`[test] ${label}: passed`);
      else if (failed === null) summaries.push(`[test] ${label}: FAILED (exit ${code}; vitest wrote no report: see its output above)`);
      else if (failed.length === 0) summaries.push(`[test] ${label}: FAILED (exit ${code}; no failed test in its report: see vitest's output above)`);
      else summaries.push(`[test] ${label}: FAILED, ${failed.length} test(s):`, ...failed.map((test) => `  ${test.file} > ${test.name}\n      ${test.message}`));
      resolve(code);
    }),
  );
}

let code = 0;
try {
  if (clusterOnly) {
    cluster = await clusterStart!;
    console.log(`[test] local Redis Cluster on ${cluster.seeds}`);
    code = await runVitest('the tests, on a local Redis Cluster', process.argv.slice(2), { ...process.env, BUILDFLEET_REDIS_CLUSTER_NODES: cluster.seeds });
  } else {
    code = await runVitest(clusterPass ? 'the whole suite, on one Redis server' : 'the tests', process.argv.slice(2), process.env);
    if (clusterPass) {
      cluster = await clusterStart!;
      console.log(`[test] the integration suite again, on a local Redis Cluster (${cluster.seeds})`);
      const clusterCode = await runVitest('the Redis Cluster pass', [...CLUSTER_PASS_PATHS, ...CLUSTER_PASS_EXCLUDES.flatMap((path) => ['--exclude', path])], { ...process.env, BUILDFLEET_REDIS_CLUSTER_NODES: cluster.seeds });
      code = code !== 0 ? code : clusterCode;
    }
    if (imageNodePass) {
      let imageNode: { path: string; version: string } | null = null;
      try {
        imageNode = registryNodeBinary(imageNodeMajorNumber!);
      } catch (error) {
        summaries.push(`[test] the pass on the image's Node.js ${imageNodeMajorNumber}: FAILED, no binary from the npm registry (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
        code = code !== 0 ? code : 1;
      }
      if (imageNode) {
        const what = process.argv.length <= 2 ? 'the whole suite' : 'the tests';
        console.log(`[test] ${what} again, on the image's Node.js ${imageNode.version} (${imageNode.path})`);
        const imageNodeCode = await runVitest(`${what} on Node.js ${imageNode.version}, the image's`, process.argv.slice(2), process.env, imageNode.path);
        code = code !== 0 ? code : imageNodeCode;
      }
    }
  }
} finally {
  cluster ??= await clusterStart?.catch(() => null) ?? null;
  await Promise.all([redis?.stop(), postgres?.stop(), cluster?.stop()]);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(clusterDir, { recursive: true, force: true });
  rmSync(reportDir, { recursive: true, force: true });
}
const checkResults = await Promise.all(besideChecks.map(async (check) => ({ check, ...(await check.result) })));
for (const { output } of checkResults) process.stdout.write(output);
for (const line of summaries) (line.includes('FAILED') || line.startsWith('  ') ? console.error : console.log)(line);
if (!dependenciesPass) console.error('[test] the dependency check failed (printed before the tests): npm run depcheck');
for (const { check, passed } of checkResults) {
  if (passed) console.log(`[test] ${check.label}: passed`);
  else console.error(`[test] ${check.label} FAILED (printed above): ${check.mend}`);
}
const checksPass = dependenciesPass && checkResults.every((result) => result.passed);
process.exit(code !== 0 ? code : checksPass ? 0 : 1);
