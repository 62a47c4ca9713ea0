// A stop-reason step (stop-reason-handler.ts): the model refused (refusal).
import { modelWrittenText } from '../domain/model-written-text.js';
import type { StopReasonOutput } from './stop-reason-types.js';
import { decisionOutput, type StopReasonState } from './stop-reason-state.js';

/** Ends the run refused, with what the model wrote as the reason. */
export function decideRefusal({ state }: { state: StopReasonState }): StopReasonOutput {
  const text = modelWrittenText({ content: state.content, progressUpdates: state.input.progressUpdates }).written;
  return decisionOutput({
    state,
    decision: {
      kind: 'end',
      status: 'refused',
      assistant: null,
      error: { code: 'refused', message: text === '' ? 'The model refused to continue this request.' : text },
    },
  });
}
