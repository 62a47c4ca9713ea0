// A stop-reason step (stop-reason-handler.ts): the model wrote one of the request's stop sequences.
import { assertNever } from '../domain/assert-never.js';
import { thinkingBlocksOf } from './assistant-content.js';
import { decideFinishOrNudge } from './decide-finish-or-nudge.js';
import type { StopReasonOutput } from './stop-reason-types.js';
import { decisionOutput, type StopReasonState } from './stop-reason-state.js';

/** Acts on the sequence: "finished" goes to the finish gate; drift into the user's turn is reprompted, a few times. */
export function decideStopSequence({ state, sequence }: { state: StopReasonState; sequence: string }): StopReasonOutput {
  const { input, counters, content } = state;
  const action = input.stopSequences[sequence] ?? 'finish';
  state.events.push({ event: 'stop-sequence-match', sequence, action });
  switch (action) {
    case 'finish':
      return decideFinishOrNudge({ state });
    case 'reprompt':
      if (counters.driftReprompts >= input.limits.maxDriftReprompts) {
        return decisionOutput({
          state,
          decision: {
            kind: 'end',
            status: 'failed',
            assistant: null,
            error: { code: 'role_play_drift', message: `The model kept writing the user's turn (stop sequence ${JSON.stringify(sequence)}).` },
          },
        });
      }
      counters.driftReprompts += 1;
      // The drifted output is discarded; a placeholder keeps the turns alternating, after the
      // thinking, which must go back unaltered.
      return decisionOutput({
        state,
        decision: {
          kind: 'continue',
          assistant: {
            role: 'assistant',
            content: [...thinkingBlocksOf(content), { type: 'text', text: '(response discarded: it drifted into writing the user turn)' }],
          },
          input: { kind: 'text', text: 'Continue as the assistant only. Do not write lines for the user; use the tools.' },
        },
      });
    default:
      return assertNever(action);
  }
}
