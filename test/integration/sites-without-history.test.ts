// A published site is public, and its bytes and published pointer are on the SiteStore: when run
// history cannot be reached (DATABASE_URL names a PostgreSQL that refuses connections), a site
// whose run's Redis keys are gone is still served from the store, while the API's reads of that
// run answer 503 history_unavailable (issue #21). Real API and sites origin over loopback.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siteStoreOf } from '../../src/sites/site-store-of-config.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

/** A loopback port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let harness: InProcessFleet;

beforeAll(async () => {
  harness = await startInProcessFleet({
    label: 'sites-no-history',
    env: { DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/absent` },
    archive: false,
    modelWorkers: 0,
    toolWorkers: 0,
  });
});
afterAll(async () => {
  await harness?.close();
});

describe('a published site while history is away', () => {
  it('is served from the site store; the API answers 503 history_unavailable for the run', async () => {
    // A run whose keys have gone: only the store holds its deployment and published pointer.
    const runId = 'run_storeonly1234567890';
    const sites = siteStoreOf(harness.config);
    await sites.putDeployment({ runId, deployId: 'dep_1', files: [{ path: 'index.html', content: '<!doctype html><html><head></head><body><h1>kept</h1></body></html>' }] });
    await sites.publish({ runId, deployId: 'dep_1', sequence: 1 });

    const page = await fetch(`${harness.sitesUrl}/sites/${runId}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h1>kept</h1>');

    const api = await fetch(`${harness.apiUrl}/v1/runs/${runId}`, { headers: { authorization: `Bearer ${harness.apiKey}` } });
    expect(api.status).toBe(503);
    expect(((await api.json()) as { error: { code: string } }).error.code).toBe('history_unavailable');
  });
});
