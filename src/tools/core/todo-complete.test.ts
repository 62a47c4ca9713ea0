import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TodoState } from '../../engine/index.js';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { todoCompleteTool } from './todo-complete.js';

let harness: ToolTestHarness;
beforeAll(async () => {
  harness = await createToolTestHarness('todocomplete');
});
afterAll(async () => harness.close());

const todos: TodoState[] = [
  { id: 'home', title: 'Home page', phase: 'build', done: false },
  { id: 'about', title: 'About page', phase: 'build', done: false },
  { id: 'check', title: 'Check live', phase: 'verify', done: false },
];

async function buildingRun() {
  const run = await harness.newRun({ phase: 'building' });
  await harness.store.setTodos(run.id, todos);
  return run;
}

describe('todo_complete', () => {
  it('marks a todo done and counts what remains', async () => {
    const run = await buildingRun();
    const output = await harness.call(todoCompleteTool, { id: 'home' }, await harness.contextFor(run.id));
    expect(output).toEqual({ todo: { ...todos[0], done: true }, remaining: 2 });
    expect((await harness.store.getRun(run.id))?.todos.find((todo) => todo.id === 'home')?.done).toBe(true);
  });

  it('keeps every completion of parallel calls', async () => {
    const run = await buildingRun();
    const contexts = await Promise.all([harness.contextFor(run.id), harness.contextFor(run.id), harness.contextFor(run.id)]);
    await Promise.all(['home', 'about', 'check'].map((id, index) => harness.call(todoCompleteTool, { id }, contexts[index]!)));
    expect((await harness.store.getRun(run.id))?.todos.every((todo) => todo.done)).toBe(true);
  });

  it('is idempotent', async () => {
    const run = await buildingRun();
    await harness.call(todoCompleteTool, { id: 'home' }, await harness.contextFor(run.id));
    const again = await harness.call(todoCompleteTool, { id: 'home' }, await harness.contextFor(run.id));
    expect(again.remaining).toBe(2);
  });

  it('refuses an unknown id, naming the known ones', async () => {
    const run = await buildingRun();
    await expect(harness.call(todoCompleteTool, { id: 'nope' }, await harness.contextFor(run.id))).rejects.toMatchObject({
      code: 'todo_not_found',
      message: expect.stringContaining('home, about, check'),
    });
    const empty = await harness.newRun({ phase: 'building' });
    await expect(harness.call(todoCompleteTool, { id: 'home' }, await harness.contextFor(empty.id))).rejects.toMatchObject({
      code: 'todo_not_found',
      message: expect.stringContaining('todo_write'),
    });
  });
});
