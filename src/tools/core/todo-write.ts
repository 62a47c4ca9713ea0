// todo_write: the plan. Writing it is what moves a run out of planning.
import { z } from 'zod';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { toolDescriptions } from '../tool-definitions.js';
import { defineTool, ToolError } from '../tool-types.js';
import { todoState, type TodoState } from '../../engine/index.js';
import { ensureRunUpdated } from './ensure-run-updated.js';

export const todoWriteTool = defineTool({
  name: 'todo_write',
  description: toolDescriptions.todo_write,
  inputSchema: toolInputSchemas.todo_write,
  output: {
    schema: z.strictObject({ todos: z.array(todoState).min(1).max(20), next_phase: z.literal('building').nullable() }),
    invariants: [
      { name: 'todo_ids_unique', check: (output) => new Set(output.todos.map((todo) => todo.id)).size === output.todos.length },
      { name: 'todos_start_not_done', check: (output) => output.todos.every((todo) => !todo.done) },
    ],
    mode: 'fail_closed',
  },
  writes: false,
  idempotent: true,
  async execute(input, context) {
    const seen = new Set<string>();
    for (const todo of input.todos) {
      if (seen.has(todo.id)) {
        throw new ToolError('todo_duplicate_id', `Todo id "${todo.id}" appears more than once; give every todo its own id.`);
      }
      seen.add(todo.id);
    }
    const todos: TodoState[] = input.todos.map((todo) => ({ ...todo, done: false }));
    await context.store.setTodos(context.runId, todos);
    const nextPhase = context.run.phase === 'planning' ? 'building' : null;
    if (nextPhase) await ensureRunUpdated({ store: context.store, runId: context.runId, update: { pendingPhase: nextPhase } });
    return { todos, next_phase: nextPhase };
  },
});
