import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { askUserTool } from './ask-user.js';

let harness: ToolTestHarness;
beforeAll(async () => {
  harness = await createToolTestHarness('askuser');
});
afterAll(async () => harness.close());

describe('ask_user', () => {
  it('returns the question and leaves the run status alone', async () => {
    const run = await harness.newRun();
    const output = await harness.call(askUserTool, { question: '  What is the bakery called? ' }, await harness.contextFor(run.id));
    expect(output).toEqual({ awaiting_input: true, question: 'What is the bakery called?' });
    expect((await harness.store.getRun(run.id))?.status).toBe('queued');
  });

  it('refuses a blank question', async () => {
    const run = await harness.newRun();
    await expect(harness.call(askUserTool, { question: '   ' }, await harness.contextFor(run.id))).rejects.toMatchObject({
      code: 'question_empty',
    });
  });
});
