import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { siteStoreOf } from '../../sites/site-store-of-config.js';
import { deployIdFor, deployTool } from './deploy.js';

let harness: ToolTestHarness;
beforeAll(async () => {
  harness = await createToolTestHarness('deploy');
});
afterAll(async () => harness.close());

describe('deploy', () => {
  it('snapshots the workspace under an id derived from the tool call', async () => {
    const run = await harness.newRun({ phase: 'building' });
    await harness.writeFile(run.id, 'index.html', '<h1>v1</h1>');
    await harness.writeFile(run.id, 'css/site.css', 'body{}');
    const context = await harness.contextFor(run.id, { publicBaseUrl: 'http://sites.test:8080/' });
    const output = await harness.call(deployTool, {}, context);
    const deployId = deployIdFor({ runId: run.id, toolUseId: context.toolUseId });
    expect(deployId).toMatch(/^dep_[0-9a-f]{16}$/);
    expect(output).toEqual({
      deploy_id: deployId,
      url: `http://sites.test:8080/sites/${run.id}/d/${deployId}/`,
      files: ['css/site.css', 'index.html'],
    });
    expect((await harness.store.getRun(run.id))?.latestDeploy).toBe(deployId);
    // The snapshot is immutable: later workspace writes do not reach it.
    await harness.writeFile(run.id, 'index.html', '<h1>v2</h1>');
    // The files are on the SiteStore (src/sites/); Redis only records the deployment.
    const sites = siteStoreOf(context.config);
    expect(await sites.readDeploymentFile({ runId: run.id, deployId, path: 'index.html' })).toBe('<h1>v1</h1>');
    expect(await harness.store.deploymentExists(run.id, deployId)).toBe(true);
  });

  it('deploys once when the same tool call runs twice', async () => {
    const run = await harness.newRun({ phase: 'building' });
    await harness.writeFile(run.id, 'index.html', 'a');
    const context = await harness.contextFor(run.id, { toolUseId: 'toolu_retry_me' });
    const first = await harness.call(deployTool, {}, context);
    await harness.writeFile(run.id, 'later.html', 'b');
    const second = await harness.call(deployTool, {}, context);
    expect(second).toEqual(first);
    expect(await harness.store.countDeployments(run.id)).toBe(1);
    const third = await harness.call(deployTool, {}, await harness.contextFor(run.id, { toolUseId: 'toolu_other' }));
    expect(third.deploy_id).not.toBe(first.deploy_id);
    expect(await harness.store.countDeployments(run.id)).toBe(2);
  });

  it('refuses an empty workspace', async () => {
    const run = await harness.newRun({ phase: 'building' });
    await expect(harness.call(deployTool, {}, await harness.contextFor(run.id))).rejects.toMatchObject({ code: 'deploy_empty_workspace' });
    expect(await harness.store.countDeployments(run.id)).toBe(0);
  });
});
