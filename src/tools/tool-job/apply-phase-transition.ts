// A successful call's phase change (define-agent.ts `transitions`): the run's agent says whether
// this call, in this phase, with this output, moves the run to another phase; if it does, the run
// records it as its pending phase, which its next turn enters (load-turn-for-job.ts). Before the
// call's result is recorded, as the builder's todo tools did it themselves: a crash in between
// runs the call again and applies the same change again (a pending phase is set, not added).
import { findAgent } from '../../agents/index.js';
import { ToolError } from '../../domain/tool-error.js';
import type { ToolCallContext } from './tool-call-context.js';

/** Sets the run's pending phase if the agent's transitions say this output moves it. */
export async function applyPhaseTransition({ call, output }: { call: ToolCallContext; output: unknown }): Promise<void> {
  const { deps, data, run } = call;
  const agent = findAgent(run.agent);
  if (!agent?.mayTransition(run.phase, data.name)) return;
  // The todos after the call (todo_complete changed them): read again only for a call that may move.
  const current = (await deps.store.getRun(data.runId)) ?? run;
  const to = agent.transitionAfter({ phase: run.phase, tool: data.name, output, todos: current.todos });
  if (to === null || to === run.phase) return;
  // Refused when the run ended while the call ran: the model hears that, not a success.
  if (!(await deps.store.updateRun(data.runId, { pendingPhase: to })))
    throw new ToolError('run_ended', 'The run has already ended, so this change was not applied.');
}
