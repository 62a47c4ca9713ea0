// Test-only: the API server over a real fleet context on the suite's Redis, under a private
// prefix, with no workers. Tests move runs along through the run engine's own operations (the
// transitions and effects the workers use), never by writing its keys. An admin key
// of tenant `default` is created for the tests (`apiKey`, `auth`); the per-tenant limits are off
// unless a test's environment sets them.
import type { FastifyInstance } from 'fastify';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { deletePrefix, testRedisEnv, uniquePrefix } from '../../../test/support/redis.js';
import { SUITE_MODEL } from '../../../test/support/suite-model.js';
import type { ApiKeyScope } from '../../auth/api-key-scopes.js';
import { ApiKeyStore } from '../../auth/api-key-store.js';
import { loadConfig } from '../../config.js';
import { createFleetContext, type FleetContext } from '../../fleet/fleet-context.js';
import { type RunRecord, writeWorkspaceFile } from '../../engine/index.js';
import { siteStoreOf } from '../../sites/site-store-of-config.js';
import { seedDeployment } from '../../../test/support/seed-deployment.js';
import { buildApiServer, type ApiServerOptions } from '../api-server.js';
import { buildSitesServer } from '../sites-server.js';

export interface ApiTestHarness {
  fleet: FleetContext;
  app: FastifyInstance;
  /** The sites origin's server over the same fleet (published sites are served there only). */
  sites: FastifyInstance;
  prefix: string;
  keyStore: ApiKeyStore;
  /** An admin key of tenant `default`. */
  apiKey: string;
  /** `{ authorization: 'Bearer <apiKey>' }`, to spread into request headers. */
  auth: { authorization: string };
  /** Creates a key and returns its token. */
  createKey(input: { tenant: string; scopes: ApiKeyScope[]; name?: string }): Promise<string>;
  /** Creates a run in the store (no job), then applies `update`. */
  newRun(update?: Partial<RunRecord>): Promise<RunRecord>;
  /** Puts a workspace file through the write path write_file uses; throws unless it was written. */
  writeFile(runId: string, path: string, content: string): Promise<void>;
  /** Deploys the run's workspace as `deployId`, as the deploy tool does (files on the fleet's site store). */
  deploy(runId: string, deployId: string): Promise<void>;
  /** Starts listening on 127.0.0.1 and an ephemeral port; returns the base URL. */
  listen(): Promise<string>;
  /** The same for the sites server. */
  listenSites(): Promise<string>;
  close(): Promise<void>;
}

export async function createApiTestHarness({
  label,
  environment = {},
  server = {},
}: {
  label: string;
  environment?: Record<string, string>;
  server?: ApiServerOptions;
}): Promise<ApiTestHarness> {
  const prefix = uniquePrefix(label);
  // A site store of its own, removed on close (a test's environment may name another).
  const sitesDir = await mkdtemp(join(tmpdir(), 'bf-sites-api-'));
  const config = loadConfig({
    // The API tests assert the responses of the suite's model unless they name one.
    BUILDFLEET_MODEL: SUITE_MODEL,
    BUILDFLEET_SITES_DIR: sitesDir,
    ...testRedisEnv(),
    BUILDFLEET_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    BUILDFLEET_PUBLIC_URL: 'https://fleet.example.test',
    BUILDFLEET_SITES_PUBLIC_URL: 'https://sites.example-usercontent.test',
    BUILDFLEET_RATE_LIMIT_PER_MINUTE: '0',
    BUILDFLEET_MAX_CONCURRENT_RUNS: '0',
    ...environment,
  });
  const fleet = createFleetContext(config, 'api');
  const app = await buildApiServer(fleet, server);
  const sites = await buildSitesServer(fleet);
  const keyStore = new ApiKeyStore({ redis: fleet.redis, keys: fleet.store.keys });
  const { token: apiKey } = await keyStore.create({ tenant: 'default', scopes: ['admin'], name: 'test harness' });
  return {
    fleet,
    app,
    sites,
    prefix,
    keyStore,
    apiKey,
    auth: { authorization: `Bearer ${apiKey}` },
    async createKey(input) {
      return (await keyStore.create(input)).token;
    },
    async newRun(update = {}) {
      const run = await fleet.store.createRun({
        tenant: 'default',
        prompt: 'Build a site for a bakery',
        model: 'claude-sonnet-4-5',
        maxTurns: 10,
        maxTokens: 1024,
        options: {},
      });
      if (Object.keys(update).length > 0) await fleet.store.updateRun(run.id, update);
      return (await fleet.store.getRun(run.id)) ?? run;
    },
    async writeFile(runId, path, content) {
      const outcome = await writeWorkspaceFile({ engine: fleet.store, runId, path, content });
      if (outcome !== 'ok') throw new Error(`seeding ${path} of ${runId}: the workspace write returned ${outcome}`);
    },
    async deploy(runId, deployId) {
      await seedDeployment({ engine: fleet.store, sites: siteStoreOf(fleet.config), runId, deployId });
    },
    async listen() {
      await app.listen({ host: '127.0.0.1', port: 0 });
      return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    },
    async listenSites() {
      await sites.listen({ host: '127.0.0.1', port: 0 });
      return `http://127.0.0.1:${(sites.server.address() as AddressInfo).port}`;
    },
    async close() {
      await Promise.all([app.close(), sites.close()]);
      await deletePrefix(fleet.redis, prefix);
      await fleet.close();
      await rm(sitesDir, { recursive: true, force: true });
    },
  };
}
