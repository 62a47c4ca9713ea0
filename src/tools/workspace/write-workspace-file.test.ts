import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { themeKey } from '../tool-keys.js';
import { writeWorkspaceFile } from './write-workspace-file.js';

let harness: ToolTestHarness;
beforeAll(async () => {
  harness = await createToolTestHarness('workspacewrite');
});
afterAll(async () => harness.close());

describe('writeWorkspaceFile', () => {
  it('writes a guarded file only while the guard still holds its value', async () => {
    const run = await harness.newRun({ phase: 'building' });
    const key = themeKey(harness.store.keys, run.id);
    await harness.redis.hset(key, 'version', '2');
    const stale = await writeWorkspaceFile({ store: harness.store, runId: run.id, path: 'theme.css', content: 'old', guard: { key, field: 'version', value: '1' } });
    expect(stale).toBe(false);
    expect(await harness.store.readFile(run.id, 'theme.css')).toBeNull();
    const current = await writeWorkspaceFile({ store: harness.store, runId: run.id, path: 'theme.css', content: 'new', guard: { key, field: 'version', value: '2' } });
    expect(current).toBe(true);
    expect(await harness.store.readFile(run.id, 'theme.css')).toBe('new');
  });
});
