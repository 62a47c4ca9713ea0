// The prompt of a validated Messages body as cacheable blocks, in the order the real API caches
// them: every tool, then every system block, then every message content block (docs
// build-with-claude/prompt-caching: "tools, system, and messages (in that order)"). Each block's
// text is its canonical JSON without `cache_control`, so moving a breakpoint never changes a prefix.
// "What invalidates the cache": tool definitions invalidate everything after them (they come
// first); `tool_choice` and the thinking parameters invalidate the messages — so they are part of
// the first message block's key.
import { parseCacheControl, settleCacheBreakpoints, type PromptBlock } from './cache-breakpoints.js';
import type { ThinkingSetting, ToolChoice } from './messages-request.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withoutCacheControl(record: Record<string, unknown>): Record<string, unknown> {
  const { cache_control: _cacheControl, ...rest } = record;
  return rest;
}

/** The body's cacheable blocks with their breakpoints; throws CacheControlInvalid on a bad breakpoint. */
export function collectPromptBlocks({
  body,
  toolChoice,
  thinking,
}: {
  body: Record<string, unknown>;
  toolChoice: ToolChoice;
  thinking: ThinkingSetting;
}): PromptBlock[] {
  const blocks: PromptBlock[] = [];
  const add = (path: string, record: Record<string, unknown>, keyPrefix = '') => {
    const text = JSON.stringify(withoutCacheControl(record));
    blocks.push({ path, text, keyText: keyPrefix + text, cacheTtl: parseCacheControl({ value: record.cache_control, path: `${path}.cache_control` }) });
  };

  if (Array.isArray(body.tools)) body.tools.forEach((tool, index) => isRecord(tool) && add(`tools.${index}`, tool));
  if (typeof body.system === 'string' && body.system !== '') {
    blocks.push({ path: 'system', text: body.system, keyText: body.system, cacheTtl: null });
  } else if (Array.isArray(body.system)) {
    body.system.forEach((block, index) => isRecord(block) && add(`system.${index}`, block));
  }

  let messagesKeyPrefix = `tool_choice=${JSON.stringify(toolChoice)};thinking=${JSON.stringify(thinking)}\u0000`;
  if (Array.isArray(body.messages)) {
    body.messages.forEach((message, messageIndex) => {
      if (!isRecord(message)) return;
      const role = String(message.role);
      const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
      if (!Array.isArray(content)) return;
      content.forEach((block, blockIndex) => {
        if (!isRecord(block)) return;
        add(`messages.${messageIndex}.content.${blockIndex}`, block, `${messagesKeyPrefix}${role}\u0000`);
        messagesKeyPrefix = '';
      });
    });
  }
  const automatic = parseCacheControl({ value: body.cache_control, path: 'cache_control' });
  return settleCacheBreakpoints({ blocks, automatic });
}
