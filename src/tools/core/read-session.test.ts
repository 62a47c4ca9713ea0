import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { readSessionTool } from './read-session.js';

let harness: ToolTestHarness;
beforeAll(async () => {
  harness = await createToolTestHarness('readsession');
});
afterAll(async () => harness.close());

describe('read_session', () => {
  it('reports phase, todos, files, deployments and meta as stored now', async () => {
    const run = await harness.newRun({ phase: 'building' });
    const context = await harness.contextFor(run.id);
    // Changes after the context was built must show: the context's run record is a snapshot.
    await harness.store.setTodos(run.id, [{ id: 'home', title: 'Home', phase: 'build', done: true }]);
    await harness.writeFile(run.id, 'index.html', '<h1>Hi</h1>');
    await harness.deploy(run.id, 'dep_a');
    await harness.store.updateRun(run.id, { liveDeploy: 'dep_a', meta: { title: 'T', description: 'D' } });
    expect(await harness.call(readSessionTool, {}, context)).toEqual({
      phase: 'building',
      pending_phase: null,
      todos: [{ id: 'home', title: 'Home', phase: 'build', done: true }],
      files: [{ path: 'index.html', bytes: 11 }],
      latest_deploy: 'dep_a',
      live_deploy: 'dep_a',
      meta: { title: 'T', description: 'D' },
    });
  });
});
