// Every role of the image, started the way the containers start it: compiled JavaScript on plain
// node (`node dist/src/cli.js <role>`), production environment, no Docker. Each serves /healthz
// and /readyz (200 once Redis is ready), then exits 0 on SIGTERM within the shutdown deadline.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/cli/spawn-role.js';
import { connectTestRedis, deletePrefix, testRedisUrl, uniquePrefix } from '../support/redis.js';
import { compileBuild, startCompiledRole, type CompiledBuild, type CompiledRole } from './support/compiled-build.js';

const SHUTDOWN_TIMEOUT_MS = 10_000;
const prefix = uniquePrefix('roles');
let build: CompiledBuild;
const started: CompiledRole[] = [];

// A full tsc build: ~20 s alone, minutes on a loaded 2-core machine running the suite in parallel.
// The bound only stops a hung compiler; it is not a performance expectation.
beforeAll(() => {
  build = compileBuild();
}, 600_000);

afterAll(async () => {
  await Promise.all(started.map((role) => role.stop('SIGKILL')));
  build?.remove();
  const redis = connectTestRedis();
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

function productionEnvironment(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    NODE_ENV: 'production',
    REDIS_URL: testRedisUrl(),
    BUILDFLEET_PREFIX: prefix,
    BUILDFLEET_API_HOST: '0.0.0.0',
    BUILDFLEET_API_PORT: '0',
    BUILDFLEET_METRICS_HOST: '0.0.0.0',
    BUILDFLEET_METRICS_PORT: '0',
    BUILDFLEET_PUBLIC_URL: 'http://api.localhost:8080',
    // The API process's second listener, the sites origin: a free port too.
    BUILDFLEET_SITES_HOST: '0.0.0.0',
    BUILDFLEET_SITES_PORT: '0',
    BUILDFLEET_SITES_PUBLIC_URL: 'http://sites.localhost:8081',
    BUILDFLEET_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    LOG_LEVEL: 'info',
    ...overrides,
  };
}

function start(name: string, args: string[], env: Record<string, string>): CompiledRole {
  const role = startCompiledRole({ name, build, args, env });
  started.push(role);
  return role;
}

const HEALTH_LINE = /health and metrics on (http:\/\/[^\s"]+)/;

async function statusOf(url: string): Promise<number> {
  return (await fetch(url)).status;
}

async function eventuallyStatus(url: string, expected: number, timeoutMs = 10_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let status = 0;
  while (Date.now() < deadline) {
    status = await statusOf(url).catch(() => 0);
    if (status === expected) return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return status;
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory).flatMap((entry) => {
    const path = join(directory, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('the compiled build (what the image runs)', () => {
  it('holds no tests, test harnesses or test support', () => {
    const files = filesUnder(join(build.root, 'dist')).map((path) => relative(join(build.root, 'dist'), path));
    expect(files).toContain('src/cli.js');
    expect(files.filter((path) => /\.test\.js$|\/testing\/|^test\//.test(path))).toEqual([]);
  });

  it('imports only Node built-ins, production dependencies and its own files', () => {
    const packageJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const builtins = new Set(builtinModules);
    // Loaded only by `buildfleet dev`/`demo` and the tests (a private redis-server and PostgreSQL),
    // never by an image role: the image sets REDIS_URL and DATABASE_URL.
    const devOnly = new Set(['src/dev/private-redis.js -> ../../scripts/redis-binary.mjs', 'src/dev/local-redis-cluster.js -> ../../scripts/redis-binary.mjs', 'src/dev/private-postgres.js -> ../../scripts/postgres-binary.mjs']);
    const problems: string[] = [];
    for (const file of filesUnder(join(build.root, 'dist')).filter((path) => path.endsWith('.js'))) {
      const source = readFileSync(file, 'utf8');
      // TypeScript's scanner finds static and dynamic imports, not look-alikes inside strings.
      const specifiers = ts.preProcessFile(source, true, true).importedFiles.map((imported) => imported.fileName);
      for (const specifier of specifiers) {
        const where = `${relative(join(build.root, 'dist'), file)} -> ${specifier}`;
        if (specifier.startsWith('.')) {
          if (!existsSync(resolve(dirname(file), specifier)) && !devOnly.has(where)) problems.push(`${where}: no such file in the build`);
          continue;
        }
        if (specifier.startsWith('node:')) continue;
        const name = specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
        if (builtins.has(name)) continue;
        if (!(name in packageJson.dependencies)) problems.push(`${where}: ${name} is not a production dependency`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('prints the usage with plain node', async () => {
    const help = start('help', ['--help'], productionEnvironment());
    const { code } = await help.exited();
    expect(code).toBe(0);
    expect(help.output()).toMatch(/Usage: buildfleet <command>/);
  });
});

describe('each role as its own process', () => {
  it('serves /healthz and /readyz, then exits 0 on SIGTERM within the shutdown deadline', async () => {
    const simulator = start('sim', ['sim', '--port', '0', '--host', '127.0.0.1'], productionEnvironment());
    const simulatorUrl = (await simulator.waitForLine(/simulator listening on (http:\/\/\S+)/))[1] ?? '';
    const environment = productionEnvironment({ BUILDFLEET_SIMULATOR_URL: simulatorUrl });
    const roles = [
      simulator,
      start('api', ['api'], environment),
      start('model-worker', ['worker', 'model'], environment),
      start('tool-worker', ['worker', 'tool'], environment),
    ];
    for (const role of roles) {
      const healthUrl = (await role.waitForLine(HEALTH_LINE))[1] ?? '';
      expect(await statusOf(`${healthUrl}/healthz`), role.name).toBe(200);
      expect(await eventuallyStatus(`${healthUrl}/readyz`, 200), role.name).toBe(200);
      const metrics = await fetch(`${healthUrl}/metrics`);
      expect(metrics.status, role.name).toBe(200);
      expect(metrics.headers.get('content-type'), role.name).toMatch(/^text\/plain/);
    }
    expect(roles[2]?.output()).toMatch(/model worker started/);
    expect(roles[3]?.output()).toMatch(/tool worker started/);
    // The API's own probes on its port (what the k8s api Deployment probes).
    const apiUrl = (await roles[1]!.waitForLine(/api listening on (http:\/\/\S+)/))[1] ?? '';
    expect(await statusOf(`${apiUrl}/healthz`)).toBe(200);
    expect(await eventuallyStatus(`${apiUrl}/readyz`, 200)).toBe(200);
    expect(await statusOf(`${simulatorUrl}/healthz`)).toBe(200);
    // The sites origin, a listener of the API process: serves no API route, sandboxes every answer.
    const sitesUrl = (await roles[1]!.waitForLine(/sites listening on (http:\/\/\S+)/))[1] ?? '';
    const notApi = await fetch(`${sitesUrl}/v1/runs`);
    expect(notApi.status).toBe(404);
    expect(notApi.headers.get('content-security-policy')).toMatch(/^sandbox /);

    const exits = await Promise.all(roles.map(async (role) => ({ name: role.name, ...(await role.stop('SIGTERM')) })));
    for (const exit of exits) {
      expect({ name: exit.name, code: exit.code, signal: exit.signal }).toEqual({ name: exit.name, code: 0, signal: null });
      expect(exit.elapsedMs, exit.name).toBeLessThan(SHUTDOWN_TIMEOUT_MS + 2_000);
    }
  }, 60_000);

  it('a worker that cannot reach Redis is alive but not ready, and still stops cleanly', async () => {
    const worker = start(
      'unready-worker',
      ['worker', 'tool'],
      productionEnvironment({ REDIS_URL: 'redis://127.0.0.1:1', BUILDFLEET_SHUTDOWN_TIMEOUT_MS: '3000' }),
    );
    const healthUrl = (await worker.waitForLine(HEALTH_LINE))[1] ?? '';
    expect(await statusOf(`${healthUrl}/healthz`)).toBe(200);
    expect(await statusOf(`${healthUrl}/readyz`)).toBe(503);
    const exit = await worker.stop('SIGTERM');
    expect(exit.code).toBe(0);
    expect(exit.elapsedMs).toBeLessThan(3_000 + 2_000);
  }, 30_000);
});
