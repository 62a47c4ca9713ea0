import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { readFileTool } from './read-file.js';

let harness: ToolTestHarness;
beforeAll(async () => {
  harness = await createToolTestHarness('readfile');
});
afterAll(async () => harness.close());

describe('read_file', () => {
  it('returns the content', async () => {
    const run = await harness.newRun({ phase: 'building' });
    await harness.writeFile(run.id, 'index.html', '<p>hi</p>');
    expect(await harness.call(readFileTool, { path: 'index.html' }, await harness.contextFor(run.id))).toEqual({
      path: 'index.html',
      bytes: 9,
      content: '<p>hi</p>',
    });
  });

  it('reports file_not_found and path_invalid', async () => {
    const run = await harness.newRun({ phase: 'building' });
    const context = await harness.contextFor(run.id);
    await expect(harness.call(readFileTool, { path: 'missing.html' }, context)).rejects.toMatchObject({ code: 'file_not_found' });
    await expect(harness.call(readFileTool, { path: '../other-run/index.html' }, context)).rejects.toMatchObject({ code: 'path_invalid' });
  });
});
