// todo_complete: marks one todo done. Completing the last build todo while building moves the
// run to verifying.
import { z } from 'zod';
import { completeTodo, todoState } from '../../engine/index.js';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { toolDescriptions } from '../../domain/tool-descriptions.js';
import { defineTool, ToolError } from '../tool-types.js';

export const todoCompleteTool = defineTool({
  name: 'todo_complete',
  description: toolDescriptions.todo_complete,
  inputSchema: toolInputSchemas.todo_complete,
  output: {
    schema: z.strictObject({ todo: todoState, remaining: z.int().min(0) }),
    invariants: [
      {
        name: 'todo_marked_done',
        check: (output, { input }) => (output.todo.done && output.todo.id === (input as { id: string }).id) || 'the todo returned is not the one completed',
      },
    ],
    mode: 'fail_closed',
  },
  writes: false,
  idempotent: true,
  async execute(input, context) {
    // Atomic in Redis: parallel todo_complete calls of one turn must not overwrite each other.
    const todos = await completeTodo({ engine: context.store, runId: context.runId, todoId: input.id });
    if (todos === null) {
      const known = context.run.todos.map((todo) => todo.id);
      throw new ToolError(
        'todo_not_found',
        `No todo has the id "${input.id}".${known.length > 0 ? ` Known ids: ${known.join(', ')}.` : ' Write a plan with todo_write first.'}`,
      );
    }
    const todo = todos.find((candidate) => candidate.id === input.id);
    // The phase change it may make is the agent's (its transitions: apply-phase-transition.ts).
    return { todo, remaining: todos.filter((candidate) => !candidate.done).length };
  },
});
