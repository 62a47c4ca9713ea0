// What a thinking block is bound to: the conversation before it (docs build-with-claude/preserved-
// thinking: editing, reordering or removing earlier turns, or changing the top-level `system` or
// `tools`, invalidates the blocks after the change; "dropping a leading run of thinking blocks",
// changing effort, max_tokens, tool_choice or metadata, and moving `cache_control` do not). So the
// digest covers the system prompt and tools (`bindingBase`, without cache_control) and every earlier
// message's role and blocks, leaving out thinking and redacted_thinking blocks and cache_control
// (normalized blocks carry none). A string content and the same text as one text block are one
// conversation, as the API reads them alike.
import { createHash } from 'node:crypto';
import type { NormalizedBlock, NormalizedMessage } from './messages-request.js';

function canonicalBlock(block: NormalizedBlock): unknown[] | null {
  switch (block.kind) {
    case 'text':
      return ['text', block.text];
    case 'tool_use':
      return ['tool_use', block.id, block.name, block.input];
    case 'tool_result':
      return ['tool_result', block.toolUseId, block.text, block.isError];
    case 'thinking':
    case 'redacted_thinking':
      return null;
    case 'other':
      return ['other', block.type];
    default:
      return null;
  }
}

/** The digest of `bindingBase` and `messages`, whose last entry may hold only the blocks before the bound block. */
export function conversationPrefixDigest({ bindingBase, messages }: { bindingBase: string; messages: readonly NormalizedMessage[] }): string {
  const canonical = messages.map((message) => [message.role, message.blocks.map(canonicalBlock).filter((block) => block !== null)]);
  return createHash('sha256').update(bindingBase).update('\u0000').update(JSON.stringify(canonical)).digest('base64');
}
