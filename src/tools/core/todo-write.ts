// todo_write: the plan. Writing it moves a run out of its first phase where the agent says so
// (the site builder's transitions: planning → building).
import { z } from 'zod';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { toolDescriptions } from '../../domain/tool-descriptions.js';
import { defineTool, ToolError } from '../tool-types.js';
import { todoState, type TodoState } from '../../engine/index.js';

export const todoWriteTool = defineTool({
  name: 'todo_write',
  description: toolDescriptions.todo_write,
  inputSchema: toolInputSchemas.todo_write,
  output: {
    schema: z.strictObject({ todos: z.array(todoState).min(1).max(20) }),
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
    // The phase change it may make is the agent's (its transitions: apply-phase-transition.ts).
    return { todos };
  },
});
