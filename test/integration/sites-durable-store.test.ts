// Sites on durable storage (issue #21): deploy and publish write the SiteStore, the guarded Lua
// steps still decide, and the sites origin keeps serving once the run's Redis keys are gone.
// Real Redis, the real tools, the real sites server over the real directory store.
import { readdir, lstat } from 'node:fs/promises';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiTestHarness, type ApiTestHarness } from '../../src/api/testing/api-test-harness.js';
import { readWriteJournal, type RunRecord } from '../../src/engine/index.js';
import { siteStoreOf } from '../../src/sites/site-store-of-config.js';
import { deployIdFor, deployTool } from '../../src/tools/build/deploy.js';
import { publishTool } from '../../src/tools/ops/publish.js';
import type { ToolContext } from '../../src/tools/tool-types.js';
import { scanKeys } from '../../src/redis/redis-scan.js';

let harness: ApiTestHarness;
beforeAll(async () => {
  harness = await createApiTestHarness({ label: 'sites-durable' });
});
afterAll(async () => harness?.close());

async function contextFor(run: RunRecord, toolUseId: string): Promise<ToolContext> {
  const current = (await harness.fleet.store.getRun(run.id)) as RunRecord;
  return {
    runId: run.id,
    run: current,
    turn: current.turn,
    toolUseId,
    phase: current.phase,
    store: harness.fleet.store,
    config: harness.fleet.config,
    logger: pino({ level: 'silent' }),
    signal: new AbortController().signal,
    publicBaseUrl: 'https://sites.example-usercontent.test',
    writeFence: { tool: toolUseId.startsWith('toolu_pub') ? 'publish' : 'deploy', probeToken: '' },
  };
}

/** Stands for retention: every Redis key of the run is deleted. */
async function deleteRunKeys(runId: string): Promise<void> {
  // Every primary's keys (KEYS and SCAN see one node of a cluster), one DEL each (a DEL of keys in
  // several slots is refused there; a run's keys share one, but this does not rely on it).
  const keys: string[] = [];
  for await (const page of scanKeys(harness.fleet.redis, `${harness.fleet.store.keys.run(runId)}*`)) keys.push(...page);
  expect(keys.length).toBeGreaterThan(0);
  await Promise.all(keys.map((key) => harness.fleet.redis.del(key)));
  expect(await harness.fleet.store.getRun(runId)).toBeNull();
}

async function filesUnder(directory: string): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) for (const [inner, inode] of await filesUnder(path)) found.set(inner, inode);
    else found.set(path, (await lstat(path)).ino);
  }
  return found;
}

interface DeployOutput {
  deploy_id: string;
  url: string;
  files: string[];
}

/** Runs deploy as the tool worker does: the output is what its contract describes. */
async function deploy(context: ToolContext): Promise<DeployOutput> {
  return (await deployTool.execute({}, context)) as DeployOutput;
}

async function get(url: string) {
  return harness.sites.inject({ method: 'GET', url });
}

describe('sites on the SiteStore', () => {
  it('serves a deployed and published site from the store after the run’s Redis keys are gone', async () => {
    const run = await harness.newRun({ phase: 'building' });
    await harness.writeFile(run.id, 'index.html', '<!doctype html><html><head></head><body><h1>Bakery</h1></body></html>');
    await harness.writeFile(run.id, 'css/site.css', 'body{color:brown}');
    await harness.writeFile(run.id, 'img/logo.png', 'data:image/png;base64,iVBORw0KGgo=');
    const deployed = await deploy(await contextFor(run, 'toolu_dep_1'));
    await publishTool.execute({ deploy_id: deployed.deploy_id }, await contextFor(run, 'toolu_pub_1'));

    // Redis holds only the record that the deployment exists; the bytes are on the store.
    expect(await harness.fleet.store.deploymentExists(run.id, deployed.deploy_id)).toBe(true);
    expect((await harness.fleet.store.getRun(run.id))?.liveDeploy).toBe(deployed.deploy_id);

    await deleteRunKeys(run.id);

    const live = await get(`/sites/${run.id}/`);
    expect(live.statusCode).toBe(200);
    expect(live.body).toContain('<h1>Bakery</h1>');
    expect(live.headers['cache-control']).toBe('no-cache');
    expect(live.headers['content-security-policy']).toMatch(/^sandbox allow-scripts/);

    const snapshot = await get(`/sites/${run.id}/d/${deployed.deploy_id}/css/site.css`);
    expect(snapshot.statusCode).toBe(200);
    expect(snapshot.body).toBe('body{color:brown}');
    expect(snapshot.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(snapshot.headers['content-type']).toContain('text/css');

    const image = await get(`/sites/${run.id}/d/${deployed.deploy_id}/img/logo.png`);
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect(image.rawPayload.subarray(0, 4).toString('hex')).toBe('89504e47');

    // Path-guarded as before, and unknown deployments and runs answer as before.
    expect((await get(`/sites/${run.id}/d/${deployed.deploy_id}/..%2F..%2Fetc%2Fpasswd`)).statusCode).toBe(404);
    expect((await get(`/sites/${run.id}/d/${deployed.deploy_id}/missing.html`)).json().error.code).toBe('site_file_not_found');
    expect((await get(`/sites/${run.id}/d/dep_0000000000000000/`)).json().error.code).toBe('deployment_not_found');
    expect((await get(`/sites/run_neverexisted1/`)).json().error.code).toBe('run_not_found');
  });

  it('a re-delivered deploy writes nothing twice and records one deployment', async () => {
    const run = await harness.newRun({ phase: 'building' });
    await harness.writeFile(run.id, 'index.html', '<h1>v1</h1>');
    const first = await deploy(await contextFor(run, 'toolu_dep_again'));
    const root = siteStoreOf(harness.fleet.config);
    const runDirectory = join(harness.fleet.config.BUILDFLEET_SITES_DIR, 'runs', run.id);
    const before = await filesUnder(runDirectory);

    // The workspace changes, then the same tool call runs again (a crash before its result).
    await harness.writeFile(run.id, 'index.html', '<h1>v2</h1>');
    const again = await deploy(await contextFor(run, 'toolu_dep_again'));
    expect(again).toEqual(first);
    expect(await filesUnder(runDirectory)).toEqual(before);
    expect(await harness.fleet.store.countDeployments(run.id)).toBe(1);
    const deployments = (await readWriteJournal({ engine: harness.fleet.store, runId: run.id })).filter((entry) => entry.kind === 'deployment');
    expect(deployments).toHaveLength(1);
    expect(await root.readDeploymentFile({ runId: run.id, deployId: first.deploy_id, path: 'index.html' })).toBe('<h1>v1</h1>');

    // A crash after the files but before the record: the retry records the stored copy, once.
    const toolUseId = 'toolu_dep_crashed';
    const deployId = deployIdFor({ runId: run.id, toolUseId });
    await root.putDeployment({ runId: run.id, deployId, files: [{ path: 'index.html', content: '<h1>v2</h1>' }] });
    const crashedBefore = await filesUnder(runDirectory);
    await harness.writeFile(run.id, 'index.html', '<h1>v3</h1>');
    const retried = await deploy(await contextFor(run, toolUseId));
    expect(retried.deploy_id).toBe(deployId);
    expect(await filesUnder(runDirectory)).toEqual(crashedBefore);
    expect(await harness.fleet.store.countDeployments(run.id)).toBe(2);
    expect(await root.readDeploymentFile({ runId: run.id, deployId, path: 'index.html' })).toBe('<h1>v2</h1>');
  });

  it('a deploy the write fence refuses leaves no deployment on the store', async () => {
    const run = await harness.newRun({ phase: 'building' });
    await harness.writeFile(run.id, 'index.html', '<h1>x</h1>');
    await harness.fleet.store.updateRun(run.id, { safeMode: 'skip_writes' });
    await expect(deployTool.execute({}, await contextFor(run, 'toolu_dep_refused'))).rejects.toMatchObject({ code: 'safe_mode_skip_writes' });
    expect(await siteStoreOf(harness.fleet.config).listDeployments(run.id)).toEqual([]);
    expect(await harness.fleet.store.countDeployments(run.id)).toBe(0);
  });

  it('a publish the write fence refuses does not move the live site on the store', async () => {
    const run = await harness.newRun({ phase: 'building' });
    await harness.writeFile(run.id, 'index.html', '<h1>one</h1>');
    const one = await deploy(await contextFor(run, 'toolu_dep_one'));
    await publishTool.execute({ deploy_id: one.deploy_id }, await contextFor(run, 'toolu_pub_one'));
    await harness.writeFile(run.id, 'index.html', '<h1>two</h1>');
    const two = await deploy(await contextFor(run, 'toolu_dep_two'));
    await harness.fleet.store.updateRun(run.id, { safeMode: 'skip_writes' });
    await expect(publishTool.execute({ deploy_id: two.deploy_id }, await contextFor(run, 'toolu_pub_two'))).rejects.toMatchObject({ code: 'safe_mode_skip_writes' });
    await expect(publishTool.execute({ deploy_id: 'dep_nope' }, await contextFor(run, 'toolu_pub_three'))).rejects.toMatchObject({ code: 'deploy_not_found' });
    expect(await siteStoreOf(harness.fleet.config).readPublished(run.id)).toMatchObject({ deployId: one.deploy_id });
    await deleteRunKeys(run.id);
    expect((await get(`/sites/${run.id}/`)).body).toBe('<h1>one</h1>');
  });
});
