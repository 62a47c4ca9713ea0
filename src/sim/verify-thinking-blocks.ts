// With manual thinking, while a tool-use loop continues (the last user message carries tool_result
// blocks) the first assistant message of the current turn — the one after the last user message
// that is not only tool results (assistant-turn.ts) — must start with a thinking or
// redacted_thinking block (docs build-with-claude/extended-thinking, "Preserving thinking blocks":
// "you must pass thinking blocks back to the API for the last assistant message"; the real 400 asks
// for it "preceeding the lastmost set of `tool_use` and `tool_result` blocks"). Without interleaved
// thinking only that message thinks, so the answers after it in the loop start with tool_use or
// text and are fine ("Subsequent responses after tool results continue without new thinking
// blocks"). Earlier, completed turns may drop them: the API strips them anyway. Whether the blocks
// are unaltered and may be read is checked before (screen-thinking-blocks.ts); this sees the
// messages without the blocks the API dropped.
import { turnStartIndex } from './assistant-turn.js';
import type { MessagesRequest } from './messages-request.js';

const MUST_START_WITH_THINKING =
  'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of ' +
  '`tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this ' +
  'requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

/** The 400 message when the current turn's first assistant message lacks its thinking block, or null. */
export function verifyThinkingBlocks({ request }: { request: MessagesRequest }): string | null {
  const { messages } = request;
  // Adaptive thinking does not ask for it (docs build-with-claude/adaptive-thinking, "Validation
  // changes": "previous assistant turns don't need to start with thinking blocks").
  if (request.thinking.type !== 'enabled' || request.thinking.adaptive === true) return null;
  const lastIndex = messages.length - 1;
  const last = messages[lastIndex];
  const continuesToolLoop = last?.role === 'user' && last.blocks.some((block) => block.kind === 'tool_result');
  if (!continuesToolLoop) return null;
  const startIndex = turnStartIndex({ messages, before: lastIndex });
  if (startIndex === null) return null;
  const first = messages[startIndex]?.blocks[0];
  if (first?.kind === 'thinking' || first?.kind === 'redacted_thinking') return null;
  const found = first === undefined ? 'nothing' : first.kind === 'other' ? first.type : first.kind;
  return `messages.${startIndex}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. ${MUST_START_WITH_THINKING}`;
}
