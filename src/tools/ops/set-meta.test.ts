import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { setMetaTool } from './set-meta.js';

let harness: ToolTestHarness;
beforeAll(async () => {
  harness = await createToolTestHarness('setmeta');
});
afterAll(async () => harness.close());

describe('set_meta', () => {
  it('stores the meta on the run and returns it', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    const meta = { title: 'Rosie’s Bakery', description: 'Sourdough & pastries in Leeds' };
    expect(await harness.call(setMetaTool, meta, await harness.contextFor(run.id))).toEqual(meta);
    expect((await harness.store.getRun(run.id))?.meta).toEqual(meta);
  });

  it('reports run_ended for a finished run', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    await harness.store.endRun(run.id, run.turn, 'succeeded', { result: 'done' });
    await expect(harness.call(setMetaTool, { title: 't', description: 'd' }, await harness.contextFor(run.id))).rejects.toMatchObject({
      code: 'run_ended',
    });
  });
});
