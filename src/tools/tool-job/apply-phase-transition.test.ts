import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { configSchema } from '../../config.js';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { applyPhaseTransition } from './apply-phase-transition.js';
import type { ToolCallContext } from './tool-call-context.js';
import type { TodoState } from '../../engine/index.js';

let harness: ToolTestHarness;
beforeAll(async () => {
  harness = await createToolTestHarness('phasetransition');
});
afterAll(async () => harness.close());

/** The call as run-tool-job.ts builds it, for a run read fresh from the store. */
async function callOf(runId: string, tool: string): Promise<ToolCallContext> {
  const run = (await harness.store.getRun(runId))!;
  return {
    deps: { store: harness.store, config: configSchema.parse({}), logger: pino({ level: 'silent' }), publicBaseUrl: 'http://127.0.0.1:9' },
    data: { runId, turn: run.turn, toolUseId: 'toolu_1', name: tool, input: {}, parseMode: 'native', trace: {} },
    job: { attemptsMade: 0, maxAttempts: 3 },
    run,
    liveUpstreams: [],
    trail: { tool, phase: run.phase, turn: run.turn, toolUseId: 'toolu_1' },
    event: (() => undefined) as never,
    emit: (async () => '') as never,
  } as ToolCallContext;
}

const plan: TodoState[] = [
  { id: 'home', title: 'Home', phase: 'build', done: false },
  { id: 'check', title: 'Check', phase: 'verify', done: false },
];

describe("a call's phase change, as the site builder's transitions declare it", () => {
  it('moves planning to building after todo_write, and nothing else does', async () => {
    const run = await harness.newRun();
    await applyPhaseTransition({ call: await callOf(run.id, 'read_session'), output: {} });
    expect((await harness.store.getRun(run.id))?.pendingPhase).toBeNull();
    await harness.store.setTodos(run.id, plan);
    await applyPhaseTransition({ call: await callOf(run.id, 'todo_write'), output: { todos: plan } });
    expect((await harness.store.getRun(run.id))?.pendingPhase).toBe('building');
  });

  it('moves building to verifying once the todos after the call have every build todo done', async () => {
    const run = await harness.newRun({ phase: 'building' });
    await harness.store.setTodos(run.id, plan);
    await applyPhaseTransition({ call: await callOf(run.id, 'todo_complete'), output: {} });
    expect((await harness.store.getRun(run.id))?.pendingPhase).toBeNull();
    await harness.store.setTodos(run.id, [{ ...plan[0]!, done: true }, plan[1]!]);
    await applyPhaseTransition({ call: await callOf(run.id, 'todo_complete'), output: {} });
    expect((await harness.store.getRun(run.id))?.pendingPhase).toBe('verifying');
  });

  it('says run_ended when the run ended while the call ran, instead of a success that changed nothing', async () => {
    const run = await harness.newRun();
    const call = await callOf(run.id, 'todo_write');
    await harness.store.endRun(run.id, run.turn, 'cancelled', {});
    await expect(applyPhaseTransition({ call, output: {} })).rejects.toMatchObject({ code: 'run_ended' });
  });
});
