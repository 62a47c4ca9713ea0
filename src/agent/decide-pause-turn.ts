// A stop-reason step (stop-reason-handler.ts): the API paused a long turn (pause_turn).
import { sanitizeAssistant } from './assistant-content.js';
import { PAUSE_TURN_CONTINUE_TEXT, type StopReasonOutput } from './stop-reason-types.js';
import { decisionOutput, type StopReasonState } from './stop-reason-state.js';

/** Continues the paused answer, a few pauses in a row at most. */
export function decidePauseTurn({ state }: { state: StopReasonState }): StopReasonOutput {
  const { input, counters } = state;
  if (counters.pauseTurnsInRow >= input.limits.maxPauseTurnsInRow) {
    return decisionOutput({
      state,
      decision: {
        kind: 'end',
        status: 'failed',
        assistant: null,
        error: { code: 'pause_turn_limit', message: `The model paused ${counters.pauseTurnsInRow + 1} turns in a row.` },
      },
    });
  }
  counters.pauseTurnsInRow += 1;
  // The documented continuation sends the paused answer back as the last message
  // (build-with-claude/handling-stop-reasons); a model that refuses a conversation ending with
  // an assistant message (400 "This model does not support assistant message prefill",
  // models/sonnet-5-5/migration-guide) gets a user message asking it to go on instead.
  return decisionOutput({
    state,
    decision: {
      kind: 'continue',
      assistant: sanitizeAssistant(state.content),
      input: input.assistantPrefill ? { kind: 'none' } : { kind: 'text', text: PAUSE_TURN_CONTINUE_TEXT },
    },
  });
}
