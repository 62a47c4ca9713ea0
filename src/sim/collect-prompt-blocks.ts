// The prompt of a validated Messages body as cacheable blocks, in the order the real API caches
// them: every tool, then every system block, then every message content block (docs
// build-with-claude/prompt-caching: "tools, system, and messages (in that order)"). Each block's
// text is its canonical JSON without any `cache_control` (its own or a nested one), so moving a
// breakpoint never changes a prefix.
// "What invalidates the cache": tool definitions invalidate everything after them (they come
// first); `tool_choice` and the thinking parameters invalidate the messages — so they are part of
// the first message block's key.
// Thinking of earlier turns: on a model that keeps only the current turn's thinking
// (model-catalog.ts `keepsThinkingOfEarlierTurns`), a user message with anything besides tool
// results starts a new turn and "all previously-cached thinking blocks are stripped from context,
// and any messages in context that follow those thinking blocks are removed from the cache"
// (prompt-caching, "What invalidates the cache" and "Caching with thinking blocks": "Non-tool-result
// user block causes all thinking blocks to be ignored. This request is processed as if thinking
// blocks were never present"). Those blocks are left out here: they neither count as input nor
// match the prefixes cached while they were present.
import { breakpointTtlOf, parseCacheControl, settleCacheBreakpoints, type CacheTtl, type PromptBlock } from './cache-breakpoints.js';
import type { ThinkingSetting, ToolChoice } from './messages-request.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const THINKING_TYPES: ReadonlySet<unknown> = new Set(['thinking', 'redacted_thinking']);

function withoutCacheControl(record: Record<string, unknown>): Record<string, unknown> {
  const { cache_control: _cacheControl, ...rest } = record;
  if (Array.isArray(rest.content)) rest.content = rest.content.map((inner) => (isRecord(inner) ? withoutCacheControl(inner) : inner));
  return rest;
}

/** The block's markers: those inside a tool_result's content first, then its own. */
function markersOf(record: Record<string, unknown>, path: string): Array<{ path: string; ttl: CacheTtl }> {
  const markers: Array<{ path: string; ttl: CacheTtl }> = [];
  if (record.type === 'tool_result' && Array.isArray(record.content)) {
    record.content.forEach((inner, index) => {
      if (!isRecord(inner)) return;
      const innerPath = `${path}.content.${index}`;
      const ttl = parseCacheControl({ value: inner.cache_control, path: `${innerPath}.cache_control` });
      if (ttl !== null) markers.push({ path: innerPath, ttl });
    });
  }
  const own = parseCacheControl({ value: record.cache_control, path: `${path}.cache_control` });
  if (own !== null) markers.push({ path, ttl: own });
  return markers;
}

/** Index of the last user message with anything besides tool results: where the current turn starts. */
function currentTurnStart(messages: readonly unknown[]): number {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (!isRecord(message) || message.role !== 'user') continue;
    if (!Array.isArray(message.content)) return index;
    if (message.content.some((block) => !isRecord(block) || block.type !== 'tool_result')) return index;
  }
  return -1;
}

/** The body's cacheable blocks with their breakpoints; throws CacheControlInvalid on a bad breakpoint. */
export function collectPromptBlocks({
  body,
  toolChoice,
  thinking,
  keepsThinkingOfEarlierTurns = true,
}: {
  body: Record<string, unknown>;
  toolChoice: ToolChoice;
  thinking: ThinkingSetting;
  /** The model's (model-catalog.ts); false strips the thinking of turns before the current one. */
  keepsThinkingOfEarlierTurns?: boolean;
}): PromptBlock[] {
  const blocks: PromptBlock[] = [];
  const add = (path: string, record: Record<string, unknown>, keyPrefix = '') => {
    const text = JSON.stringify(withoutCacheControl(record));
    const markers = markersOf(record, path);
    blocks.push({ path, text, keyText: keyPrefix + text, cacheTtl: breakpointTtlOf(markers), markers, cacheable: !THINKING_TYPES.has(record.type) });
  };

  if (Array.isArray(body.tools)) body.tools.forEach((tool, index) => isRecord(tool) && add(`tools.${index}`, tool));
  if (typeof body.system === 'string' && body.system !== '') {
    blocks.push({ path: 'system', text: body.system, keyText: body.system, cacheTtl: null, markers: [], cacheable: true });
  } else if (Array.isArray(body.system)) {
    body.system.forEach((block, index) => isRecord(block) && add(`system.${index}`, block));
  }

  let messagesKeyPrefix = `tool_choice=${JSON.stringify(toolChoice)};thinking=${JSON.stringify(thinking)}\u0000`;
  if (Array.isArray(body.messages)) {
    const stripBefore = thinking.type === 'enabled' && !keepsThinkingOfEarlierTurns ? currentTurnStart(body.messages) : -1;
    body.messages.forEach((message, messageIndex) => {
      if (!isRecord(message)) return;
      const role = String(message.role);
      const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
      if (!Array.isArray(content)) return;
      content.forEach((block, blockIndex) => {
        if (!isRecord(block)) return;
        if (messageIndex < stripBefore && role === 'assistant' && THINKING_TYPES.has(block.type)) return;
        add(`messages.${messageIndex}.content.${blockIndex}`, block, `${messagesKeyPrefix}${role}\u0000`);
        messagesKeyPrefix = '';
      });
    });
  }
  const automatic = parseCacheControl({ value: body.cache_control, path: 'cache_control' });
  return settleCacheBreakpoints({ blocks, automatic });
}
