// Step 2 of a model turn (run-model-turn.ts): the run's turn limit, before anything is paid for.
// (Its budgets are checked once the call's worst case is known: check-turn-budget.ts.)
import { done, type ModelTurnResult, type TurnContext } from './turn-context.js';

/** Ends the run when it has used all its turns; null when the turn may go on. */
export async function checkTurnBounds({ context }: { context: TurnContext }): Promise<ModelTurnResult | null> {
  const { deps, run, runId, turn } = context;
  if (turn < run.maxTurns) return null;
  await deps.store.endRun(runId, turn, 'failed', { error: { code: 'max_turns_exceeded', message: `The run used all ${run.maxTurns} turns.` } });
  return done('run_failed');
}
