// A response in which the model wrote its tool call as text: stop_reason end_turn, or
// stop_sequence when an `open_fence` call hit a "```" stop sequence the request asked for.
import type { PlannedToolCall } from './planned-turn.js';
import type { ResponsePlan } from './response-plan.js';
import type { ScenarioName } from '../domain/scenario-names.js';
import { CODE_FENCE, formatTextToolCall, type TextToolCallFormat } from './text-tool-call-format.js';

/** The response for `call` drifted into `format`. */
export function planTextToolCall({
  format,
  call,
  stopSequences,
  source,
}: {
  format: TextToolCallFormat;
  call: PlannedToolCall;
  stopSequences: readonly string[];
  source: 'text-tool-call' | ScenarioName;
}): ResponsePlan {
  const stoppedAtFence = format === 'open_fence' && stopSequences.includes(CODE_FENCE);
  return {
    blocks: [{ type: 'text', text: formatTextToolCall({ format, call }) }],
    stopReason: stoppedAtFence ? 'stop_sequence' : 'end_turn',
    stopSequence: stoppedAtFence ? CODE_FENCE : null,
    stopDetails: null,
    source,
    firesOncePerRun: false,
  };
}
