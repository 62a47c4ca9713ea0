// A stop-reason step (stop-reason-handler.ts): an answer cut off by the output limit (max_tokens)
// or by the context window (model_context_window_exceeded).
import { isToolUse } from '../domain/model-message.js';
import { isUnsignedThinking, nativeCalls, sanitizeAssistant } from './assistant-content.js';
import { decideToolCalls } from './decide-tool-calls.js';
import type { StopReasonOutput } from './stop-reason-types.js';
import { decisionOutput, type StopReasonState } from './stop-reason-state.js';

/** Runs the complete calls and continues, raising max_tokens, until truncations in a row run out. */
export function decideTruncatedAnswer({ state, reason }: { state: StopReasonState; reason: 'max_tokens' | 'model_context_window_exceeded' }): StopReasonOutput {
  const { input, counters, events, content, toolUses } = state;
  const last = content.at(-1);
  const cutInsideToolUse = last !== undefined && isToolUse(last);
  const complete = cutInsideToolUse ? toolUses.slice(0, -1) : toolUses;
  const kept = cutInsideToolUse || (last !== undefined && isUnsignedThinking(last)) ? content.slice(0, -1) : content;
  if (cutInsideToolUse) {
    events.push({ event: 'tool-call-truncate', tool: last.name, tool_use_id: last.id });
  }
  if (reason === 'model_context_window_exceeded' && complete.length === 0) {
    return decisionOutput({
      state,
      decision: {
        kind: 'end',
        status: 'failed',
        assistant: null,
        error: { code: 'context_window_exceeded', message: 'The conversation no longer fits the model context window; continuing cannot help.' },
      },
    });
  }
  if (counters.maxTokensContinuations >= input.limits.maxTokensContinuations) {
    return decisionOutput({
      state,
      decision: {
        kind: 'end',
        status: 'failed',
        assistant: null,
        error: {
          code: reason === 'max_tokens' ? 'max_tokens_exhausted' : 'context_window_exceeded',
          message: `The model's output was cut off ${counters.maxTokensContinuations + 1} times in a row.`,
        },
      },
    });
  }
  counters.maxTokensContinuations += 1;
  const reissue = cutInsideToolUse ? `Your call to ${last.name} was cut off by the output limit and was NOT executed. Reissue it, smaller if needed.` : null;
  // A larger limit helps a long answer, not a full context window.
  if (reason === 'max_tokens') {
    const raised = Math.min(input.currentMaxTokens * 2, input.maxTokensCeiling);
    if (raised > state.maxTokens) {
      events.push({ event: 'max-tokens-raise', from: state.maxTokens, to: raised });
      state.maxTokens = raised;
    }
  }
  if (complete.length > 0) {
    return decideToolCalls({
      state,
      decision: {
        kind: 'tools',
        assistant: sanitizeAssistant(kept),
        calls: nativeCalls(complete),
        note: reissue ?? 'Your message was cut off by the output limit after these tool calls; continue from where you left off.',
      },
    });
  }
  return decisionOutput({
    state,
    decision: {
      kind: 'continue',
      assistant: sanitizeAssistant(kept),
      input: { kind: 'text', text: reissue ?? 'Your previous answer was cut off by the output limit. Continue from where you left off.' },
    },
  });
}
