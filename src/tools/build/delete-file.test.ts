import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { deleteFileTool } from './delete-file.js';

let harness: ToolTestHarness;
beforeAll(async () => {
  harness = await createToolTestHarness('deletefile');
});
afterAll(async () => harness.close());

describe('delete_file', () => {
  it('deletes a file; deleting it again is file_not_found', async () => {
    const run = await harness.newRun({ phase: 'building' });
    await harness.writeFile(run.id, 'old.html', 'x');
    const context = await harness.contextFor(run.id);
    expect(await harness.call(deleteFileTool, { path: 'old.html' }, context)).toEqual({ path: 'old.html', deleted: true });
    expect(await harness.store.readFile(run.id, 'old.html')).toBeNull();
    await expect(harness.call(deleteFileTool, { path: 'old.html' }, context)).rejects.toMatchObject({ code: 'file_not_found' });
    await expect(harness.call(deleteFileTool, { path: 'C:/x.html' }, context)).rejects.toMatchObject({ code: 'path_invalid' });
  });
});
