import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { todoWriteTool } from './todo-write.js';

let harness: ToolTestHarness;
beforeAll(async () => {
  harness = await createToolTestHarness('todowrite');
});
afterAll(async () => harness.close());

const plan = {
  todos: [
    { id: 'home', title: 'Write the home page', phase: 'build' },
    { id: 'check', title: 'Check the live site', phase: 'verify' },
  ],
};

describe('todo_write', () => {
  it('stores the plan as not done, and leaves the phase to the agent (apply-phase-transition.test.ts)', async () => {
    const run = await harness.newRun();
    const output = await harness.call(todoWriteTool, plan, await harness.contextFor(run.id));
    expect(Object.keys(output)).toEqual(['todos']);
    expect(output.todos).toEqual(plan.todos.map((todo) => ({ ...todo, done: false })));
    const stored = await harness.store.getRun(run.id);
    expect(stored?.todos).toEqual(output.todos);
    expect(stored?.pendingPhase).toBeNull();
  });

  it('replaces an earlier plan', async () => {
    const run = await harness.newRun({ phase: 'building' });
    await harness.store.setTodos(run.id, [{ id: 'old', title: 'Old', phase: 'build', done: true }]);
    await harness.call(todoWriteTool, plan, await harness.contextFor(run.id));
    const stored = await harness.store.getRun(run.id);
    expect(stored?.todos.map((todo) => todo.id)).toEqual(['home', 'check']);
    expect(stored?.pendingPhase).toBeNull();
  });

  it('refuses duplicate ids', async () => {
    const run = await harness.newRun();
    const duplicate = { todos: [plan.todos[0], plan.todos[0]] };
    await expect(harness.call(todoWriteTool, duplicate, await harness.contextFor(run.id))).rejects.toMatchObject({
      code: 'todo_duplicate_id',
    });
    expect((await harness.store.getRun(run.id))?.todos).toEqual([]);
  });
});
