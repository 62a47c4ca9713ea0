// Helpers for the common rules of a finish gate (define-agent.ts `finishGate`), each a function of
// the run's trail that returns what is missing, or null when the rule holds. An agent's gate is
// then a list of them: `finishGate: (view) => missingOf(view, [atLeast(...), after(...)])`.
import type { FinishView, TrailCall } from './define-agent.js';

export type FinishRule = (view: FinishView) => string | null;

const succeeded = (tool: string, phase?: string) => (call: TrailCall) => call.ok && call.tool === tool && (phase === undefined || call.phase === phase);

/** "n successful calls of `tool` (in `phase`, if given)". */
export function atLeast(count: number, tool: string, { phase, say }: { phase?: string; say?: string } = {}): FinishRule {
  return ({ trail }) => {
    const made = trail.filter(succeeded(tool, phase)).length;
    if (made >= count) return null;
    return say ?? `Call ${tool} successfully at least ${count} time${count === 1 ? '' : 's'}${phase ? ` while ${phase}` : ''} (${made} so far).`;
  };
}

/** "a successful `tool` after the last successful call of any of `changes`": e.g. deploy again after
 * the last write. Holds when none of `changes` succeeded and `tool` did. */
export function after(tool: string, changes: readonly string[], { say }: { say?: string } = {}): FinishRule {
  return ({ trail }) => {
    let lastChange = -1;
    let lastTool = -1;
    trail.forEach((call, index) => {
      if (!call.ok) return;
      if (changes.includes(call.tool)) lastChange = index;
      if (call.tool === tool) lastTool = index;
    });
    if (lastTool > lastChange) return null;
    return say ?? (lastTool === -1 ? `Call ${tool}.` : `Call ${tool} again: ${trail[lastChange]?.tool ?? 'a change'} succeeded after its last call.`);
  };
}

/** "every todo of the plan done", and a plan at all. */
export const planDone: FinishRule = ({ todos }) => {
  if (todos.length === 0) return 'Write a plan first with todo_write.';
  const open = todos.filter((todo) => !todo.done);
  return open.length === 0 ? null : `Finish and mark done with todo_complete: ${open.map((todo) => `"${todo.id}"`).join(', ')}.`;
};

/** What a list of rules finds missing, in order. */
export function missingOf(view: FinishView, rules: readonly FinishRule[]): string[] {
  return rules.flatMap((rule) => rule(view) ?? []);
}
