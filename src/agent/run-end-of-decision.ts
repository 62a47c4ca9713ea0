// Part of step 5 of a model turn (run-model-turn.ts): the run's end a decision carries.
import type { RunErrorCode } from '../domain/run-outcomes.js';
import { type RunRecord } from '../engine/index.js';
import type { TurnDecision } from './stop-reason-handler.js';

/** The run's end when the decision ends it. A run in skip_writes safe mode cannot pass the
 * finish gate; say so rather than blame the model. */
export function runEndOfDecision({ run, decision }: { run: RunRecord; decision: TurnDecision }) {
  if (decision.kind === 'succeed') return { status: 'succeeded' as const, result: decision.result, error: null };
  if (decision.kind !== 'end') return null;
  const error: { code: RunErrorCode; message: string } =
    run.safeMode === 'skip_writes' && decision.error.code === 'unverified_finish'
      ? {
          code: 'safe_mode_incomplete',
          message: `The run continued in skip_writes safe mode after an invalid tool output and could not finish: ${decision.error.message}`,
        }
      : decision.error;
  return { status: decision.status, result: null, error };
}
