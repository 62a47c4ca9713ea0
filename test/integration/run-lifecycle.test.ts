// Bounds, human input and cancellation through the real queues.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerQuestion, cancelRun } from '../../src/fleet/run-commands.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

let harness: InProcessFleet;
beforeAll(async () => {
  harness = await startInProcessFleet({ label: 'lifecycle' });
});
afterAll(async () => {
  await harness?.close();
});

const requestsOf = (runId: string) => harness.simulator.requests.filter((request) => request.headers['x-buildfleet-run-id'] === runId);

describe('run bounds', () => {
  it('ends at maxTurns with its own error code', async () => {
    const run = await harness.waitForRun((await harness.submit({ maxTurns: 3 })).id);
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('max_turns_exceeded');
    expect(requestsOf(run.id)).toHaveLength(3);
  });

  it('ends before a call that could cross the token budget (here the first: its max_tokens alone is more)', async () => {
    const run = await harness.waitForRun((await harness.submit({ options: { tokenBudget: 3000 } })).id);
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('budget_exceeded');
    expect(requestsOf(run.id)).toHaveLength(0);
  });
});

describe('tool_choice across a build', () => {
  it('forces the plan, then auto to the end: the summary turn after the finish gate too, never any or none', async () => {
    const run = await harness.waitForRun((await harness.submit({})).id);
    expect(run.status).toBe('succeeded');
    const choices = requestsOf(run.id).map((request) => (request.body as { tool_choice: { type: string } }).tool_choice.type);
    expect(choices[0]).toBe('tool');
    expect(new Set(choices.slice(1))).toEqual(new Set(['auto']));
  });
});

describe('human in the loop', () => {
  it('waits for input, closes the open tool_use with the answer, and resumes', async () => {
    const created = await harness.submit({ options: { scenario: 'ask_user' } });
    const waiting = await harness.waitForRun(created.id);
    expect(waiting.status).toBe('waiting_for_input');
    expect(waiting.question?.question).toBe('Which color scheme do you prefer?');
    expect(await answerQuestion(harness.fleet, waiting, 'Warm colors.')).toBe('resumed');
    const after = await harness.waitForRun(created.id);
    expect(after.status).toBe('succeeded');
    const answered = requestsOf(created.id).some((request) =>
      JSON.stringify((request.body as { messages: unknown[] }).messages).includes('Warm colors.'),
    );
    expect(answered).toBe(true);
    // No open question now: a second answer is refused.
    expect(await answerQuestion(harness.fleet, after, 'again')).toBe('no_open_question');
  });

  it('answers 409 over the API when no question is open', async () => {
    const run = await harness.waitForRun((await harness.submit({})).id);
    const response = await fetch(`${harness.apiUrl}/v1/runs/${run.id}/input`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${harness.apiKey}` },
      body: JSON.stringify({ text: 'hello' }),
    });
    expect(response.status).toBe(409);
  });
});

describe('cancellation', () => {
  it('stops a waiting run; its later jobs do nothing', async () => {
    const created = await harness.submit({ options: { scenario: 'ask_user' } });
    const waiting = await harness.waitForRun(created.id);
    expect(await cancelRun(harness.fleet, waiting)).toBe(true);
    expect(await answerQuestion(harness.fleet, waiting, 'late')).toBe('run_ended');
    const before = requestsOf(created.id).length;
    await harness.fleet.queues.own.enqueueTurn({ runId: created.id, turn: 99, trace: {} });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(requestsOf(created.id)).toHaveLength(before);
    expect((await harness.fleet.store.getRun(created.id))?.status).toBe('cancelled');
  });
});
