// One exhaustive decision per model response, keyed on stop_reason. Pure: the model worker
// applies the decision (stores it once, enqueues what it says). Adding a stop reason to the
// union (stop-reason-types.ts) is a compile error until it is handled here. Each stop reason is
// decided by a step of its own (decide-*.ts) over the state this handler sets up.
import { isToolUse } from '../domain/model-message.js';
import { assertNever } from '../domain/assert-never.js';
import { type RunCounters } from '../engine/index.js';
import { nativeCalls, sanitizeAssistant } from './assistant-content.js';
import { decideFinishOrNudge } from './decide-finish-or-nudge.js';
import { decidePauseTurn } from './decide-pause-turn.js';
import { decideRefusal } from './decide-refusal.js';
import { decideStopSequence } from './decide-stop-sequence.js';
import { decideToolCalls } from './decide-tool-calls.js';
import { decideTruncatedAnswer } from './decide-truncated-answer.js';
import { decideUnexpectedStop } from './decide-unexpected-stop.js';
import { decisionOutput, type StopReasonState } from './stop-reason-state.js';
import { KNOWN_STOP_REASONS, type KnownStopReason, type StopReasonInput, type StopReasonOutput } from './stop-reason-types.js';

export * from './stop-reason-types.js';
export { mergeContinuation, sanitizeAssistant, thinkingBlocksOf } from './assistant-content.js';

/** Decides what the response means for the run. */
export function handleStopReason(input: StopReasonInput): StopReasonOutput {
  const { response } = input;
  const counters: RunCounters = { ...input.counters };
  const reason = response.stop_reason as KnownStopReason | null;
  if (reason !== 'pause_turn') counters.pauseTurnsInRow = 0;
  // Truncations are counted in a row: a clean answer in between means the limit was enough again.
  if (reason !== 'max_tokens' && reason !== 'model_context_window_exceeded') counters.maxTokensContinuations = 0;
  const state: StopReasonState = {
    input,
    content: response.content,
    toolUses: response.content.filter(isToolUse),
    counters,
    events: [],
    maxTokens: input.currentMaxTokens,
  };

  switch (reason) {
    case 'end_turn':
      return decideFinishOrNudge({ state });
    case 'tool_use':
      if (state.toolUses.length === 0) {
        return decisionOutput({
          state,
          decision: {
            kind: 'end',
            status: 'failed',
            assistant: null,
            error: { code: 'tool_use_without_calls', message: 'stop_reason was tool_use but the response held no tool_use block' },
          },
        });
      }
      return decideToolCalls({
        state,
        decision: { kind: 'tools', assistant: sanitizeAssistant(state.content), calls: nativeCalls(state.toolUses), note: null },
      });
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return decideTruncatedAnswer({ state, reason });
    case 'stop_sequence':
      return decideStopSequence({ state, sequence: response.stop_sequence ?? '' });
    case 'pause_turn':
      return decidePauseTurn({ state });
    case 'refusal':
      return decideRefusal({ state });
    case null:
      return decideUnexpectedStop({ state, raw: 'null' });
    default: {
      // A stop reason this code does not know yet: fail the run, never crash the worker.
      const raw: string = reason;
      if ((KNOWN_STOP_REASONS as readonly string[]).includes(raw)) return assertNever(reason);
      return decideUnexpectedStop({ state, raw });
    }
  }
}
