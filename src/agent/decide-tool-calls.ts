// A stop-reason step (stop-reason-handler.ts): an answer with tool calls to run.
import { VERIFIED_WITHOUT_SUMMARY_TEXT, type StopReasonOutput, type TurnDecision } from './stop-reason-types.js';
import { decisionOutput, type StopReasonState } from './stop-reason-state.js';

/** Tool calls to run. After the finish gate passed none of them runs (the turn refuses each,
 * reject-call.ts `finish_already_verified`) and the next message asks for the summary again
 * (summary-request.ts), at most maxSummaryReprompts times; the next answer with calls ends the
 * run succeeded with the summary finish_turn carried: the site is verified, only the model's
 * closing words are missing, and asking once more would only loop. */
export function decideToolCalls({ state, decision }: { state: StopReasonState; decision: Extract<TurnDecision, { kind: 'tools' }> }): StopReasonOutput {
  const { input, counters } = state;
  if (!input.finishVerified) return decisionOutput({ state, decision });
  if (counters.summaryReprompts >= input.limits.maxSummaryReprompts) {
    state.events.push({ event: 'summary-fallback-use', reprompts: counters.summaryReprompts, tools: decision.calls.map((call) => call.name) });
    return decisionOutput({
      state,
      decision: { kind: 'succeed', assistant: decision.assistant, result: input.finishSummary ?? VERIFIED_WITHOUT_SUMMARY_TEXT },
    });
  }
  counters.summaryReprompts += 1;
  // The summary request replaces any note (run-model-turn.ts, noteForToolResults).
  return decisionOutput({ state, decision: { ...decision, note: null } });
}
