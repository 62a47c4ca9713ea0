// Where the current assistant turn starts. A tool-use loop is one assistant turn: the user's
// message opens it, and the answers that follow tool results (user messages holding only
// tool_result blocks) continue it (docs build-with-claude/thinking-tool-workflows: "a tool-use loop
// is one assistant turn"). Docs build-with-claude/extended-thinking, "Tool use without interleaved
// thinking": "Without interleaved thinking, Claude thinks once at the start of the assistant turn.
// Subsequent responses after tool results continue without new thinking blocks." Interleaved
// thinking is on with the `interleaved-thinking-2025-05-14` beta header on manual thinking, and by
// itself with adaptive thinking ("Interleaved thinking is automatically enabled when using adaptive
// thinking"). Not modelled: the header has no effect on Claude 3.7 Sonnet and is ignored on Opus 4.6
// manual thinking; Mythos models interleave without it.
import type { MessagesRequest, NormalizedMessage } from './messages-request.js';
import { INTERLEAVED_THINKING_BETA } from './parse-beta-header.js';

/** A user message that only hands back tool results: it continues the assistant turn. */
export function holdsOnlyToolResults(message: NormalizedMessage): boolean {
  return message.role === 'user' && message.blocks.length > 0 && message.blocks.every((block) => block.kind === 'tool_result');
}

/**
 * The index of the first assistant message of the current turn among `messages[0 … before - 1]`:
 * the one after the last user message that is not only tool results; null when there is none.
 */
export function turnStartIndex({ messages, before }: { messages: readonly NormalizedMessage[]; before: number }): number | null {
  for (let index = before - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role === 'user' && !holdsOnlyToolResults(message)) {
      const next = index + 1;
      return next < before && messages[next]?.role === 'assistant' ? next : null;
    }
  }
  return null;
}

/** Whether the model thinks between tool calls too, not only at the start of a turn. */
export function thinksBetweenToolCalls(request: MessagesRequest): boolean {
  if (request.thinking.type !== 'enabled') return false;
  return request.thinking.adaptive === true || request.betas.includes(INTERLEAVED_THINKING_BETA);
}
