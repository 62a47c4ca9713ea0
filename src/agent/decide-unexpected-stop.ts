// A stop-reason step (stop-reason-handler.ts): a stop reason this code does not know (or none).
import type { StopReasonOutput } from './stop-reason-types.js';
import { decisionOutput, type StopReasonState } from './stop-reason-state.js';

/** Fails the run, never the worker, saying which stop reason came. */
export function decideUnexpectedStop({ state, raw }: { state: StopReasonState; raw: string }): StopReasonOutput {
  state.events.push({ event: 'stop-reason-reject', level: 'warn', raw_stop_reason: raw });
  return decisionOutput({
    state,
    decision: {
      kind: 'end',
      status: 'failed',
      assistant: null,
      error: { code: 'unexpected_stop', message: `The model stopped with an unknown stop_reason: ${raw}` },
    },
  });
}
