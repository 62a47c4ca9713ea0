// todo_complete's effect: marks one todo of the run's plan done, read-modify-write in one script
// (bfCompleteTodo) so two todo_complete calls of one turn cannot lose each other's mark.
import { z } from 'zod';
import { defineToolScripts } from '../effect-scripts.js';
import type { RunEngine } from '../run-engine.js';
import { StoredRunInvalid } from '../run-record.js';
import { todoState, type TodoState } from '../run-types.js';

const todosSchema = z.array(todoState);

/** The plan after marking the todo done, validated; null when no todo has that id. */
export async function completeTodo({ engine, runId, todoId }: { engine: RunEngine; runId: string; todoId: string }): Promise<TodoState[] | null> {
  const raw = await defineToolScripts(engine.redis).bfCompleteTodo(engine.keys.run(runId), todoId);
  if (raw === null) return null;
  const parsed = todosSchema.safeParse(JSON.parse(raw));
  if (!parsed.success) throw new StoredRunInvalid(runId, 'todos', parsed.error.issues[0]?.message ?? 'invalid');
  return parsed.data;
}
