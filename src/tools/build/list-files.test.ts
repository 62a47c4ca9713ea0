import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { listFilesTool } from './list-files.js';

let harness: ToolTestHarness;
beforeAll(async () => {
  harness = await createToolTestHarness('listfiles');
});
afterAll(async () => harness.close());

describe('list_files', () => {
  it('lists files sorted with sizes and totals', async () => {
    const run = await harness.newRun({ phase: 'building' });
    expect(await harness.call(listFilesTool, {}, await harness.contextFor(run.id))).toEqual({ files: [], count: 0, total_bytes: 0 });
    await harness.writeFile(run.id, 'b.html', 'bb');
    await harness.writeFile(run.id, 'a.html', 'a');
    expect(await harness.call(listFilesTool, {}, await harness.contextFor(run.id))).toEqual({
      files: [
        { path: 'a.html', bytes: 1 },
        { path: 'b.html', bytes: 2 },
      ],
      count: 2,
      total_bytes: 3,
    });
  });
});
