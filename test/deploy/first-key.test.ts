// Issue #18, item 5: the documented deploy path reaches the console. The first-key commands that
// docs/deploy.md gives for Compose and Kubernetes are read from the page and run as the containers
// would run them — `node dist/src/cli.js keys bootstrap` from a compiled build, with the `api`
// service's compose environment or the rendered ConfigMap, only Redis pointed at the test Redis —
// and the key they print opens the API of a real API process. Running them again creates nothing.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_PATTERN, ApiKeyStore } from '../../src/auth/api-key-store.js';
import { PROJECT_ROOT } from '../../src/cli/spawn-role.js';
import { createKeySpace } from '../../src/engine/index.js';
import { connectTestRedis, deletePrefix, testRedisUrl, uniquePrefix } from '../support/redis.js';
import { compileBuild, startCompiledRole, type CompiledBuild, type CompiledRole } from './support/compiled-build.js';
import { readComposeFile } from './support/compose-file.js';
import { kubectlVersion, renderKustomization } from './support/render-kustomization.js';

const DEPLOY_DOC = readFileSync(join(PROJECT_ROOT, 'docs', 'deploy.md'), 'utf8');
const TOKEN_IN_OUTPUT = /\bbf_[A-Za-z0-9_-]{43}\b/g;
const redis = connectTestRedis();
const prefixes: string[] = [];
const started: CompiledRole[] = [];
const sitesDirectory = mkdtempSync(join(tmpdir(), 'buildfleet-first-key-sites-'));
let build: CompiledBuild;

// A full tsc build: minutes on a loaded 2-core machine; the bound only stops a hung compiler.
beforeAll(() => {
  build = compileBuild();
}, 600_000);

afterAll(async () => {
  await Promise.all(started.map((role) => role.stop('SIGKILL')));
  build?.remove();
  rmSync(sitesDirectory, { recursive: true, force: true });
  for (const prefix of prefixes) await deletePrefix(redis, prefix);
  redis.disconnect();
});

function newPrefix(label: string): string {
  const prefix = uniquePrefix(label);
  prefixes.push(prefix);
  return prefix;
}

/**
 * The command the page documents for a platform, inside backticks or a code block: what follows
 * `launcher` must be the image's entry point (`node dist/src/cli.js`, WORKDIR /app) and its args.
 */
function documentedCliArgs(launcher: string): string[] {
  const escaped = launcher.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const matches = [...DEPLOY_DOC.matchAll(new RegExp(`${escaped} node dist/src/cli\\.js (keys bootstrap[^\`\\n]*)`, 'g'))];
  expect(matches.length, `docs/deploy.md documents "${launcher} node dist/src/cli.js keys bootstrap"`).toBeGreaterThan(0);
  const commands = new Set(matches.map((match) => match[1]!.trim()));
  // Every place the page gives the command gives the same one.
  expect([...commands]).toHaveLength(1);
  return [...commands][0]!.split(/\s+/);
}

/** Runs `node dist/src/cli.js ARGS` with exactly this environment; its exit code and output. */
async function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const cli = startCompiledRole({ name: `cli ${args.join(' ')}`, build, args, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env } });
  const { code } = await cli.exited();
  return { code, output: cli.output() };
}

async function startApi(prefix: string): Promise<string> {
  const api = startCompiledRole({
    name: 'api',
    build,
    args: ['api'],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      NODE_ENV: 'production',
      REDIS_URL: testRedisUrl(),
      BUILDFLEET_PREFIX: prefix,
      BUILDFLEET_API_HOST: '127.0.0.1',
      BUILDFLEET_API_PORT: '0',
      BUILDFLEET_SITES_HOST: '127.0.0.1',
      BUILDFLEET_SITES_PORT: '0',
      BUILDFLEET_METRICS_HOST: '127.0.0.1',
      BUILDFLEET_METRICS_PORT: '0',
      BUILDFLEET_SITES_DIR: sitesDirectory,
      LOG_LEVEL: 'warn',
    },
  });
  started.push(api);
  return (await api.waitForLine(/api listening on (http:\/\/\S+)/, 60_000))[1] ?? '';
}

async function statusWithKey(url: string, key: string | null): Promise<number> {
  const response = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  await response.arrayBuffer();
  return response.status;
}

/**
 * The whole first-key path on one platform's environment: the documented command prints a key once,
 * the key opens the API (and its admin routes), and running the command again prints no key and
 * leaves exactly one key in the store.
 */
async function bootstrapThroughTheApi(args: string[], environment: Record<string, string>, prefix: string): Promise<void> {
  const first = await runCli(args, environment);
  expect(first.code, first.output).toBe(0);
  const tokens = first.output.match(TOKEN_IN_OUTPUT) ?? [];
  expect(tokens, first.output).toHaveLength(1);
  const key = tokens[0]!;
  expect(key).toMatch(API_KEY_PATTERN);
  expect(first.output).toMatch(/shown only now/);

  const store = new ApiKeyStore({ redis, keys: createKeySpace(prefix) });
  const keys = await store.list();
  expect(keys.map(({ tenant, scopes, name, revoked }) => ({ tenant, scopes, name, revoked }))).toEqual([
    { tenant: 'admin', scopes: ['runs:read', 'runs:write', 'admin'], name: 'bootstrap', revoked: null },
  ]);

  const apiUrl = await startApi(prefix);
  expect(await statusWithKey(`${apiUrl}/v1/runs`, null)).toBe(401);
  expect(await statusWithKey(`${apiUrl}/v1/runs`, key)).toBe(200);
  expect(await statusWithKey(`${apiUrl}/v1/admin/queues`, key)).toBe(200);

  const again = await runCli(args, environment);
  expect(again.code, again.output).toBe(0);
  expect(again.output.match(TOKEN_IN_OUTPUT), again.output).toBeNull();
  expect(again.output).toContain(`A bootstrap key already exists: ${keys[0]!.id}`);
  expect((await store.list()).map((info) => info.id)).toEqual([keys[0]!.id]);
  // The first key still works: the second run replaced nothing.
  expect(await statusWithKey(`${apiUrl}/v1/runs`, key)).toBe(200);
}

describe('the first API key, as docs/deploy.md documents it', () => {
  it('Compose: `docker compose exec api node dist/src/cli.js keys bootstrap` with the api service’s environment', async () => {
    const compose = readComposeFile(join(PROJECT_ROOT, 'docker-compose.yml'));
    const api = compose.services.api!;
    // `exec api` runs in the api container: the fleet's image and the api service's environment.
    expect(api.image).toBe(compose.services['tool-worker']!.image);
    const environment = Object.fromEntries(Object.entries(api.environment ?? {}).map(([name, value]) => [name, value === null ? '' : String(value)]));
    expect(environment.REDIS_URL).toBe('redis://redis:6379');
    const prefix = newPrefix('firstkeycompose');
    // Only Redis differs: the test's instead of the compose network's `redis`, under a test prefix.
    // The collector at jaeger:4318 is unreachable here, as it may be in a real one-shot exec.
    await bootstrapThroughTheApi(documentedCliArgs('docker compose exec api'), { ...environment, REDIS_URL: testRedisUrl(), BUILDFLEET_PREFIX: prefix }, prefix);
  }, 180_000);

  it.skipIf(!kubectlVersion())('Kubernetes: `kubectl -n buildfleet exec deploy/api -c api -- node dist/src/cli.js keys bootstrap` with the rendered ConfigMap', async () => {
    const documents = renderKustomization(join(PROJECT_ROOT, 'k8s'));
    const api = documents.find((document) => document.kind === 'Deployment' && document.metadata.name === 'api') as unknown as {
      spec: { template: { spec: { containers: Array<{ name: string; envFrom?: Array<{ configMapRef?: { name: string } }>; env?: Array<{ name: string; value?: string }> }> } } };
    };
    // `exec deploy/api -c api` names a container the Deployment has, and it gets the ConfigMap.
    const container = api.spec.template.spec.containers.find((candidate) => candidate.name === 'api');
    expect(container).toBeDefined();
    const configMapName = container!.envFrom?.find((source) => source.configMapRef)?.configMapRef?.name;
    const configMap = documents.find((document) => document.kind === 'ConfigMap' && document.metadata.name === configMapName) as unknown as { data: Record<string, string> };
    const environment = {
      ...configMap.data,
      ...Object.fromEntries((container!.env ?? []).map(({ name, value }) => [name, value ?? ''])),
    };
    const prefix = newPrefix('firstkeyk8s');
    await bootstrapThroughTheApi(documentedCliArgs('kubectl -n buildfleet exec deploy/api -c api --'), { ...environment, REDIS_URL: testRedisUrl(), BUILDFLEET_PREFIX: prefix }, prefix);
  }, 180_000);
});

describe('ApiKeyStore.createBootstrap', () => {
  it('makes one key when several bootstraps run at once', async () => {
    const prefix = newPrefix('firstkeyrace');
    const store = new ApiKeyStore({ redis, keys: createKeySpace(prefix) });
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => store.createBootstrap({ tenant: 'admin', scopes: ['admin'], name: 'bootstrap' })));
    const created = outcomes.filter((outcome) => outcome.created);
    expect(created).toHaveLength(1);
    const keys = await store.list();
    expect(keys.map((info) => info.id)).toEqual([created[0]!.id]);
    for (const outcome of outcomes.filter((candidate) => !candidate.created)) expect(outcome).toEqual({ created: false, id: created[0]!.id, existing: keys[0] });
  });

  it('creates nothing after the bootstrap key was revoked, and refuses a marker that is not a key id', async () => {
    const prefix = newPrefix('firstkeyrevoked');
    const keySpace = createKeySpace(prefix);
    const store = new ApiKeyStore({ redis, keys: keySpace });
    const first = await store.createBootstrap({ tenant: 'ops', scopes: ['admin'], name: 'bootstrap' });
    if (!first.created) throw new Error('the first bootstrap created nothing');
    expect(await store.revoke(first.id)).toBe('revoked');
    const second = await store.createBootstrap({ tenant: 'ops', scopes: ['admin'], name: 'bootstrap' });
    expect(second).toMatchObject({ created: false, id: first.id, existing: { tenant: 'ops' } });
    expect(second.created ? null : second.existing?.revoked).toEqual(expect.any(String));
    expect(await store.list()).toHaveLength(1);

    await redis.set(`${keySpace.apiKeys()}:bootstrap`, 'not-a-key-id');
    await expect(store.createBootstrap({ tenant: 'ops', scopes: ['admin'], name: 'bootstrap' })).rejects.toThrow(/not a key id/);
  });
});
