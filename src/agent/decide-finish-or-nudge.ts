// A stop-reason step (stop-reason-handler.ts): end_turn, or a stop sequence that means "finished".
import { modelWrittenText } from '../domain/model-written-text.js';
import { sanitizeAssistant } from './assistant-content.js';
import { decideTextToolCall } from './decide-text-tool-call.js';
import { EMPTY_ANSWER_TEXT, type StopReasonOutput } from './stop-reason-types.js';
import { decisionOutput, type StopReasonState } from './stop-reason-state.js';

/** Recovers text tool calls, then applies the finish gate: the run succeeds, is nudged on, or ends unverified. */
export function decideFinishOrNudge({ state }: { state: StopReasonState }): StopReasonOutput {
  const { input, counters, events, content } = state;
  // Calls written as text are looked for in the text blocks only: a progress update precedes a
  // native tool_use, so a call it describes is made natively (model-written-text.ts).
  const { written, answer: text } = modelWrittenText({ content, progressUpdates: input.progressUpdates });
  const recovered = decideTextToolCall({ state, text });
  if (recovered) return recovered;
  if (input.finishVerified) {
    return decisionOutput({
      state,
      decision: { kind: 'succeed', assistant: sanitizeAssistant(content), result: written === '' ? EMPTY_ANSWER_TEXT : written },
    });
  }
  events.push({ event: 'finish-suspect', missing: input.finishGateMissing, nudges: counters.endTurnNudges });
  if (counters.endTurnNudges >= input.limits.maxEndTurnNudges) {
    return decisionOutput({
      state,
      decision: {
        kind: 'end',
        status: 'failed',
        assistant: sanitizeAssistant(content),
        error: {
          code: 'unverified_finish',
          message:
            `The model stopped ${counters.endTurnNudges + 1} times before the site was verified. ` +
            `Missing: ${input.finishGateMissing.join('; ') || 'finish_turn was not called'}`,
        },
      },
    });
  }
  counters.endTurnNudges += 1;
  const missing = input.finishGateMissing.length > 0 ? input.finishGateMissing : ['call finish_turn once everything is done'];
  return decisionOutput({
    state,
    decision: {
      kind: 'continue',
      assistant: sanitizeAssistant(content),
      input: { kind: 'text', text: `The build is not finished yet. Still missing:\n- ${missing.join('\n- ')}\nContinue with the tools.` },
    },
  });
}
