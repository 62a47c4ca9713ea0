// tool_choice for a turn: force the plan on the first call, let the model choose afterwards,
// and forbid tools on the summary turn after the finish gate passed. `any` is never sent every
// turn: it makes a model call tools it does not need.
import type { Phase } from './profile.js';

export type ToolChoice = { type: 'auto' } | { type: 'none' } | { type: 'tool'; name: string };

export function chooseToolChoice(input: { phase: Phase; hasPlan: boolean; finishVerified: boolean }): ToolChoice {
  if (input.finishVerified) return { type: 'none' };
  if (input.phase === 'planning' && !input.hasPlan) return { type: 'tool', name: 'todo_write' };
  return { type: 'auto' };
}
