// A stop-reason step (decide-finish-or-nudge.ts): a tool call the model wrote as text instead of
// making it. Detection always runs, so JSON-in-text and fence-only stops are counted even where
// recovery is off; acting on them is what recoveryEnabled switches.
import type { AssistantMessage } from '../domain/model-message.js';
import { sanitizeAssistant, thinkingBlocksOf } from './assistant-content.js';
import type { StopReasonOutput } from './stop-reason-types.js';
import { decisionOutput, type StopReasonState } from './stop-reason-state.js';

/** The recovered call, or a request to re-emit it natively; null when the text holds no call to act on. */
export function decideTextToolCall({ state, text }: { state: StopReasonState; text: string }): StopReasonOutput | null {
  const { input, counters, events, content } = state;
  if (!input.recover || text === '') return null;
  const recovery = input.recover(text, !input.finishVerified);
  const call = recovery.calls[0];
  const detected = call !== undefined || recovery.fence_only_stop || recovery.json_in_text || recovery.candidate_count > 0;
  if (detected && !input.finishVerified) {
    events.push({
      event: recovery.fence_only_stop ? 'fence-only-stop' : 'text-call-detect',
      parse_mode: recovery.parse_mode,
      candidate_count: recovery.candidate_count,
      fallback_used: recovery.fallback_used,
      schema_validation: recovery.schema_validation,
      reason: recovery.reason,
      recovery: input.recoveryEnabled,
    });
  }
  // A message that carries thinking is never rewritten: the API verifies a thinking turn as it
  // was returned ("pass thinking blocks back … unmodified", build-with-claude/extended-thinking,
  // "Preserving thinking blocks"), and a tool_use it never produced behind its thinking is a
  // rebuilt message. Such a message goes back as it came, and the model is asked to re-emit.
  // After the finish gate nothing runs any more, so a call in the summary is not recovered.
  const thinkingKeptVerbatim = thinkingBlocksOf(content).length > 0;
  if (input.recoveryEnabled && call && !input.finishVerified && !thinkingKeptVerbatim && recovery.parse_mode !== 'none' && recovery.parse_mode !== 'native') {
    const toolUseId = input.newSyntheticId();
    events.push({ event: 'tool-call-recover', tool: call.name, parse_mode: recovery.parse_mode, tool_use_id: toolUseId, original_text: text });
    // The text is replaced by the call it described.
    const assistant: AssistantMessage = {
      role: 'assistant',
      content: [{ type: 'tool_use', id: toolUseId, name: call.name, input: call.arguments }],
    };
    return decisionOutput({
      state,
      decision: { kind: 'tools', assistant, calls: [{ toolUseId, name: call.name, input: call.arguments, parseMode: recovery.parse_mode }], note: null },
    });
  }
  const reemit = recovery.fence_only_stop || recovery.json_in_text || recovery.candidate_count > 0 || call !== undefined;
  if (input.recoveryEnabled && call && !input.finishVerified && thinkingKeptVerbatim) {
    events.push({ event: 'tool-call-reemit', tool: call.name, parse_mode: recovery.parse_mode, reason: 'thinking_message_kept_verbatim' });
  }
  if (!(input.recoveryEnabled && reemit && !input.finishVerified && counters.reemitRequests < input.limits.maxReemitRequests)) return null;
  counters.reemitRequests += 1;
  const described = call ? `a call to ${call.name}` : (recovery.reason ?? 'no valid call');
  return decisionOutput({
    state,
    decision: {
      kind: 'continue',
      assistant: sanitizeAssistant(content),
      input: {
        kind: 'text',
        text:
          `Your last message described a tool call in text instead of calling the tool (${described}). ` +
          'Nothing was executed. Call exactly one tool with the native tool-use mechanism.',
      },
    },
  });
}
