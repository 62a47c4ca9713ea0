// The assistant message as the turn sends it back (stop-reason-handler.ts and its steps): what the
// API accepts of the model's own content, kept verbatim where it verifies it.
import { isText, isThinking, type AssistantBlock, type AssistantMessage, type ToolUseBlock } from '../domain/model-message.js';
import type { PlannedCall } from './stop-reason-types.js';

const EMPTY_CONTENT_PLACEHOLDER = '(no content)';

/** Assistant content as it may be sent back: no empty text blocks (the API rejects them), and a
 * placeholder where nothing but thinking is left, so user and assistant turns keep alternating.
 * thinking and redacted_thinking blocks stay verbatim and in place: the API verifies each one and
 * wants them first in the message that a tool loop continues. */
export function sanitizeAssistant(content: AssistantBlock[]): AssistantMessage {
  const kept = content.filter((block) => !(isText(block) && block.text.trim() === ''));
  const hasAnswer = kept.some((block) => !isThinking(block));
  return { role: 'assistant', content: hasAnswer ? kept : [...kept, { type: 'text', text: EMPTY_CONTENT_PLACEHOLDER }] };
}

/** After pause_turn the request ended with the paused assistant message and the answer continues
 * it: one message, the paused content first (its thinking blocks verbatim at the start), then the
 * continuation. A placeholder the paused message needed on its own is dropped. */
export function mergeContinuation(paused: AssistantMessage, continuation: AssistantMessage): AssistantMessage {
  const isPlaceholder = (block: AssistantBlock) => isText(block) && block.text === EMPTY_CONTENT_PLACEHOLDER;
  return sanitizeAssistant([...paused.content.filter((block) => !isPlaceholder(block)), ...continuation.content.filter((block) => !isPlaceholder(block))]);
}

/** The response's thinking blocks, verbatim and in order: what a rewrite of the message keeps
 * ahead of the content it substitutes. */
export function thinkingBlocksOf(content: AssistantBlock[]): AssistantBlock[] {
  return content.filter(isThinking);
}

/** A thinking block cut off by the output limit has no signature yet and cannot be sent back. */
export function isUnsignedThinking(block: AssistantBlock): boolean {
  return block.type === 'thinking' && (typeof block.signature !== 'string' || block.signature === '');
}

/** The native tool_use blocks as calls to run. */
export function nativeCalls(blocks: ToolUseBlock[]): PlannedCall[] {
  return blocks.map((block) => ({ toolUseId: block.id, name: block.name, input: block.input, parseMode: 'native' }));
}
