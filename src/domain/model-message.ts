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
/** A mid-conversation tool change (docs build-with-claude/mid-conversation-system-messages, beta
 * `mid-conversation-tool-changes-2026-07-01`): surfaces (`tool_addition`) or withdraws
 * (`tool_removal`) a tool declared in the request's `tools`, from this point of the conversation on. */
export interface ToolChangeBlock {
  type: 'tool_addition' | 'tool_removal';
  tool: { type: 'tool_reference'; name: string };
}
export type SystemBlock = TextBlock | ToolChangeBlock;

/** A mid-conversation system message (`role: "system"` inside `messages`, GA, no beta header):
 * instructions that apply from here on, and the tool changes above. It follows a user turn and
 * precedes an assistant turn; once sent it is part of the prefix and sent again verbatim. */
export interface SystemMessage {
  role: 'system';
  content: string | SystemBlock[];
}
export type TranscriptMessage = AssistantMessage | UserMessage | SystemMessage;

/** The roles a stored transcript message may have: the payload views and the archive read these. */
export const TRANSCRIPT_ROLES = ['user', 'assistant', 'system'] as const satisfies ReadonlyArray<TranscriptMessage['role']>;

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

export function isToolChange(block: { type: string }): block is ToolChangeBlock {
  return block.type === 'tool_addition' || block.type === 'tool_removal';
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
