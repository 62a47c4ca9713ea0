// Prompt-cache breakpoints, placed on a copy of the request at send time and never stored: the
// transcript in Redis stays breakpoint-free and the breakpoint moves forward every turn.
//
// How the API caches (docs build-with-claude/prompt-caching): the prompt is read as tools → system
// → messages; a `cache_control` block caches the whole prefix up to and including it; "cache hits
// require 100% identical prompt segments"; a breakpoint also finds hits "at all previous content
// block boundaries (up to approximately 20 blocks before your explicit breakpoint)"; "you can
// define up to 4 cache breakpoints"; "Thinking blocks cannot be cached directly with
// cache_control" (a thinking block carrying one is a 400). So, at most four, in prefix order:
//   1. the last tool definition — the phase's tier, sent in a stable order, so every run of the
//      phase shares it;
//   2. the system prompt, as one text block (a string cannot carry a breakpoint);
//   3. the tail of the previous request: the last block of the user message before the last
//      assistant answer. The previous request wrote its entry exactly there, so it is read even
//      when the turn added more than ~20 blocks (a dozen parallel tool calls and their results);
//   4. the last block of the last message: the transcript up to this turn, for the next one.
// A mid-conversation system message (role "system": a phase change's instructions and tool
// changes, src/agent/phase-tools.ts) never carries one: breakpoints 3 and 4 go on the user or
// assistant message before it. The docs refuse cache_control on a turn-scoped system message and
// say nothing of the others; a phase message is a few dozen tokens, read from the cache from the
// next request on (it sits before that request's breakpoint 3), so nothing is lost by leaving it
// unmarked.
// The cached prefix is then byte-identical from one turn to the next: the blocks before a
// breakpoint are the stored transcript's, serialized the same way every time (JSON.stringify of
// what the run engine parsed back from Redis), and a breakpoint marks the same block with the same
// `cache_control` in both requests. Every breakpoint takes the same lifetime, so the rule that
// "a 1-hour cache entry must appear before any 5-minute cache entries" always holds.
import type { AssistantBlock, AssistantMessage, TranscriptMessage, UserBlock, UserMessage } from '../domain/model-message.js';

export type PromptCacheTtl = '5m' | '1h';

/** SDK `CacheControlEphemeral`: no `ttl` is the API's default, five minutes. */
export interface CacheControl {
  type: 'ephemeral';
  ttl?: '1h';
}

/** A system prompt block that may carry a breakpoint (SDK `TextBlockParam`). */
export interface SystemTextBlock {
  type: 'text';
  text: string;
  cache_control?: CacheControl;
}

export const MAXIMUM_CACHE_BREAKPOINTS = 4;

/** The `cache_control` value of a breakpoint with this lifetime. */
export function cacheControlFor(ttl: PromptCacheTtl): CacheControl {
  return ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}

type Block = AssistantBlock | UserBlock;

/** Whether a breakpoint may sit on the block: never on thinking (a 400), never on empty text. */
function mayCarryBreakpoint(block: Block): boolean {
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return false;
  if (block.type === 'text') return typeof (block as { text?: unknown }).text === 'string' && (block as { text: string }).text !== '';
  return true;
}

/** The message with a breakpoint on its last block that may carry one; the same message when none may. */
function withBreakpointOnLastBlock(message: UserMessage | AssistantMessage, cacheControl: CacheControl): TranscriptMessage {
  const blocks: Block[] = typeof message.content === 'string' ? (message.content === '' ? [] : [{ type: 'text', text: message.content }]) : message.content;
  for (let index = blocks.length - 1; index >= 0; index -= 1) {
    const block = blocks[index]!;
    if (!mayCarryBreakpoint(block)) continue;
    const content = [...blocks];
    content[index] = { ...block, cache_control: cacheControl } as Block;
    return { ...message, content } as TranscriptMessage;
  }
  return message;
}

/** Index of the user message the previous request ended with: the last user message before the
 * last assistant message (a tool loop `… user, assistant, user` or a continued pause `… user,
 * assistant`; system messages between them are passed over); -1 when the transcript has no
 * earlier request. */
function previousTailIndex(messages: readonly TranscriptMessage[]): number {
  let sawAssistant = false;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const role = messages[index]!.role;
    if (role === 'assistant') sawAssistant = true;
    else if (role === 'user' && sawAssistant) return index;
  }
  return -1;
}

/** Index of the last message that may carry a breakpoint (not a system message); -1 when none. */
function lastMarkableIndex(messages: readonly TranscriptMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index -= 1) if (messages[index]!.role !== 'system') return index;
  return -1;
}

function mark(messages: TranscriptMessage[], index: number, cacheControl: CacheControl): void {
  const message = messages[index]!;
  if (message.role !== 'system') messages[index] = withBreakpointOnLastBlock(message, cacheControl);
}

/**
 * The request's tools, system and messages with the breakpoints placed (see the file comment).
 * The inputs are not modified: only the marked tool, the system block and the marked messages are
 * new objects, so the stored transcript (and the cached tool definitions) stay as they were.
 */
export function placeCacheBreakpoints<Tool extends object>({
  tools,
  system,
  messages,
  ttl,
}: {
  tools: readonly Tool[];
  system: string;
  messages: readonly TranscriptMessage[];
  ttl: PromptCacheTtl;
}): { tools: Array<Tool & { cache_control?: CacheControl }>; system: string | SystemTextBlock[]; messages: TranscriptMessage[] } {
  const cacheControl = cacheControlFor(ttl);
  const markedTools: Array<Tool & { cache_control?: CacheControl }> = [...tools];
  // A tool declared with defer_loading is not rendered where it is declared (a tool_addition
  // surfaces it later: src/agent/phase-tools.ts), so the breakpoint goes on the last one that is.
  const lastToolIndex = tools.findLastIndex((tool) => (tool as { defer_loading?: unknown }).defer_loading !== true);
  if (lastToolIndex >= 0) markedTools[lastToolIndex] = { ...tools[lastToolIndex]!, cache_control: cacheControl };

  const markedSystem: string | SystemTextBlock[] = system === '' ? system : [{ type: 'text', text: system, cache_control: cacheControl }];

  const markedMessages = [...messages];
  const lastIndex = lastMarkableIndex(messages);
  if (lastIndex >= 0) mark(markedMessages, lastIndex, cacheControl);
  const tailIndex = previousTailIndex(messages);
  if (tailIndex >= 0 && tailIndex !== lastIndex) mark(markedMessages, tailIndex, cacheControl);

  return { tools: markedTools, system: markedSystem, messages: markedMessages };
}
