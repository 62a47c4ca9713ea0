import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { MAX_FILE_BYTES, MAX_WORKSPACE_FILES } from '../../engine/index.js';
import { writeFileTool } from './write-file.js';

let harness: ToolTestHarness;
beforeAll(async () => {
  harness = await createToolTestHarness('writefile');
});
afterAll(async () => harness.close());

describe('write_file', () => {
  it('stores the file and reports its size and hash', async () => {
    const run = await harness.newRun({ phase: 'building' });
    const content = '<h1>Crème brûlée</h1>';
    const output = await harness.call(writeFileTool, { path: 'index.html', content }, await harness.contextFor(run.id));
    expect(output).toEqual({
      path: 'index.html',
      bytes: Buffer.byteLength(content),
      sha256: createHash('sha256').update(content).digest('hex'),
    });
    expect(await harness.store.readFile(run.id, 'index.html')).toBe(content);
  });

  it('gives the same result when repeated with the same content', async () => {
    const run = await harness.newRun({ phase: 'building' });
    const input = { path: 'css/site.css', content: 'body{}' };
    const first = await harness.call(writeFileTool, input, await harness.contextFor(run.id));
    const second = await harness.call(writeFileTool, input, await harness.contextFor(run.id));
    expect(second).toEqual(first);
    expect(await harness.store.listFiles(run.id)).toEqual([{ path: 'css/site.css', bytes: 6 }]);
  });

  it('refuses unsafe paths', async () => {
    const run = await harness.newRun({ phase: 'building' });
    for (const path of ['../escape.html', '/abs.html', '.env', 'a//b.html']) {
      await expect(harness.call(writeFileTool, { path, content: 'x' }, await harness.contextFor(run.id))).rejects.toMatchObject({
        code: 'path_invalid',
      });
    }
    expect(await harness.store.listFiles(run.id)).toEqual([]);
  });

  it('refuses a file over 512 KB but accepts exactly 512 KB', async () => {
    const run = await harness.newRun({ phase: 'building' });
    const context = await harness.contextFor(run.id);
    await expect(harness.call(writeFileTool, { path: 'big.html', content: 'x'.repeat(MAX_FILE_BYTES + 1) }, context)).rejects.toMatchObject({
      code: 'file_too_large',
    });
    // Multi-byte characters count as bytes, not characters.
    await expect(harness.call(writeFileTool, { path: 'big.html', content: 'é'.repeat(MAX_FILE_BYTES / 2 + 1) }, context)).rejects.toMatchObject({
      code: 'file_too_large',
    });
    await expect(harness.call(writeFileTool, { path: 'big.html', content: 'x'.repeat(MAX_FILE_BYTES) }, context)).resolves.toMatchObject({
      bytes: MAX_FILE_BYTES,
    });
  });

  it('refuses a 201st file but allows overwriting an existing one', async () => {
    const run = await harness.newRun({ phase: 'building' });
    await Promise.all(Array.from({ length: MAX_WORKSPACE_FILES }, (_, index) => harness.writeFile(run.id, `page-${index}.html`, 'x')));
    const context = await harness.contextFor(run.id);
    await expect(harness.call(writeFileTool, { path: 'one-more.html', content: 'x' }, context)).rejects.toMatchObject({
      code: 'workspace_file_limit',
    });
    await expect(harness.call(writeFileTool, { path: 'page-0.html', content: 'new' }, context)).resolves.toMatchObject({ bytes: 3 });
  });

  it('refuses a write that takes the workspace past 5 MB, counting an overwrite once', async () => {
    const run = await harness.newRun({ phase: 'building' });
    const block = 'x'.repeat(MAX_FILE_BYTES);
    for (let index = 0; index < 10; index += 1) await harness.writeFile(run.id, `block-${index}.bin`, block);
    const context = await harness.contextFor(run.id);
    await expect(harness.call(writeFileTool, { path: 'extra.html', content: 'x' }, context)).rejects.toMatchObject({
      code: 'workspace_too_large',
    });
    await expect(harness.call(writeFileTool, { path: 'block-0.bin', content: block }, context)).resolves.toMatchObject({
      bytes: MAX_FILE_BYTES,
    });
  });

  it('enforces the file cap under parallel writes', async () => {
    const run = await harness.newRun({ phase: 'building' });
    await Promise.all(Array.from({ length: MAX_WORKSPACE_FILES - 2 }, (_, index) => harness.writeFile(run.id, `p${index}.html`, 'x')));
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, async (_, index) =>
        harness.call(writeFileTool, { path: `new-${index}.html`, content: 'x' }, await harness.contextFor(run.id)),
      ),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(2);
    expect(await harness.store.listFiles(run.id)).toHaveLength(MAX_WORKSPACE_FILES);
  });
});
