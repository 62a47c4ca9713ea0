// The subset of the Messages API the fleet stores and sends, kept as plain JSON types so the
// transcript in Redis is exactly what goes over the wire.
import type { UsageByClass } from './usage.js';

export interface TextBlock {
  type: 'text';
  text: string;
}
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}
export type AssistantBlock = TextBlock | ToolUseBlock | { type: string; [field: string]: unknown };
export type UserBlock = TextBlock | ToolResultBlock;

export interface AssistantMessage {
  role: 'assistant';
  content: AssistantBlock[];
}
export interface UserMessage {
  role: 'user';
  content: string | UserBlock[];
}
export type TranscriptMessage = AssistantMessage | UserMessage;

/** What the fleet keeps of one model response. */
export interface ModelResponse {
  id: string;
  model: string;
  content: AssistantBlock[];
  stop_reason: string | null;
  stop_sequence: string | null;
  /** Tokens by billing class (usage.ts), mapped from the API's usage once, where it arrives. */
  usage: UsageByClass;
}

export function isToolUse(block: AssistantBlock): block is ToolUseBlock {
  return block.type === 'tool_use';
}
export function isText(block: AssistantBlock): block is TextBlock {
  return block.type === 'text';
}
/** thinking and redacted_thinking blocks: sent back byte for byte, never rewritten (docs
 * build-with-claude/extended-thinking, "Preserving thinking blocks"). */
export function isThinking(block: AssistantBlock): boolean {
  return block.type === 'thinking' || block.type === 'redacted_thinking';
}
