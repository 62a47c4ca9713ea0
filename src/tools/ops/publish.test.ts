import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { publishTool } from './publish.js';

let harness: ToolTestHarness;
beforeAll(async () => {
  harness = await createToolTestHarness('publish');
});
afterAll(async () => harness.close());

describe('publish', () => {
  it('makes a deployment live, idempotently', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    await harness.writeFile(run.id, 'index.html', 'x');
    await harness.deploy(run.id, 'dep_abc');
    const context = await harness.contextFor(run.id, { publicBaseUrl: 'https://fleet.example/' });
    const output = await harness.call(publishTool, { deploy_id: 'dep_abc' }, context);
    expect(output).toEqual({ deploy_id: 'dep_abc', url: `https://fleet.example/sites/${run.id}/` });
    expect(await harness.call(publishTool, { deploy_id: 'dep_abc' }, context)).toEqual(output);
    expect((await harness.store.getRun(run.id))?.liveDeploy).toBe('dep_abc');
  });

  it('refuses an unknown deployment', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    await expect(harness.call(publishTool, { deploy_id: 'dep_nope' }, await harness.contextFor(run.id))).rejects.toMatchObject({
      code: 'deploy_not_found',
    });
    expect((await harness.store.getRun(run.id))?.liveDeploy).toBeNull();
  });
});
