import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Phase } from '../../domain/profile.js';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { ToolError } from '../tool-types.js';
import { finishTurnTool } from './finish-turn.js';

let harness: ToolTestHarness;
beforeAll(async () => {
  harness = await createToolTestHarness('finishturn');
});
afterAll(async () => harness.close());

/** Records a successful call of `tool` the way the tool worker does: its result and trail entry. */
async function record(runId: string, tool: string, phase: Phase): Promise<void> {
  const toolUseId = `toolu_${tool}_${Math.random().toString(36).slice(2)}`;
  await harness.store.recordToolResult(runId, { content: '{}', is_error: false, output: {} }, { tool, ok: true, phase, turn: 1, toolUseId });
}

describe('finish_turn', () => {
  it('fails listing exactly what is missing', async () => {
    const run = await harness.newRun({ phase: 'building' });
    await harness.store.setTodos(run.id, [{ id: 'home', title: 'Home page', phase: 'build', done: false }]);
    await record(run.id, 'write_file', 'building');
    const error = await harness.call(finishTurnTool, { summary: 'Done' }, await harness.contextFor(run.id)).catch((caught) => caught);
    expect(ToolError.isInstance(error)).toBe(true);
    expect(error.code).toBe('finish_gate_failed');
    expect(error.message).toBe(
      [
        'The work is not finished yet:',
        '- Finish todo "home" (Home page), then mark it with todo_complete.',
        '- Write at least 3 site files with write_file while building (1 written so far).',
        '- Deploy the site with deploy.',
        '- Publish the latest deployment with publish (pass the deploy_id that deploy returned).',
      ].join('\n'),
    );
    expect((await harness.store.getRun(run.id))?.finishVerified).toBe(false);
  });

  it('passes a finished run and marks it verified, in the phase it was in (the summary turn keeps its prefix)', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    await harness.store.setTodos(run.id, [{ id: 'home', title: 'Home page', phase: 'build', done: true }]);
    for (const tool of ['write_file', 'write_file', 'write_file', 'deploy']) await record(run.id, tool, 'building');
    await record(run.id, 'publish', 'verifying');
    await harness.writeFile(run.id, 'index.html', 'x');
    await harness.deploy(run.id, 'dep_final');
    await harness.store.updateRun(run.id, { liveDeploy: 'dep_final' });
    const output = await harness.call(finishTurnTool, { summary: 'Site is live' }, await harness.contextFor(run.id));
    expect(output).toEqual({ finished: true, summary: 'Site is live' });
    const stored = await harness.store.getRun(run.id);
    expect(stored?.finishVerified).toBe(true);
    expect(stored?.pendingPhase).toBeNull();
    expect(stored?.phase).toBe('verifying');
  });

  it('refuses when an older deployment is live than the latest', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    await harness.store.setTodos(run.id, [{ id: 'home', title: 'Home page', phase: 'build', done: true }]);
    for (const tool of ['write_file', 'write_file', 'write_file', 'deploy', 'publish']) await record(run.id, tool, 'building');
    await harness.writeFile(run.id, 'index.html', 'x');
    await harness.deploy(run.id, 'dep_one');
    await harness.deploy(run.id, 'dep_two');
    await harness.store.updateRun(run.id, { liveDeploy: 'dep_one' });
    await expect(harness.call(finishTurnTool, { summary: 'x' }, await harness.contextFor(run.id))).rejects.toMatchObject({
      code: 'finish_gate_failed',
      message: expect.stringContaining('dep_two is the newest, but dep_one is live'),
    });
  });
});
