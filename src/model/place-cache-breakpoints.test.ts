import { describe, expect, it } from 'vitest';
import type { TranscriptMessage } from '../domain/model-message.js';
import { MAXIMUM_CACHE_BREAKPOINTS, placeCacheBreakpoints } from './place-cache-breakpoints.js';

const TOOLS = [
  { name: 'todo_write', description: 'Write the plan.', input_schema: { type: 'object' } },
  { name: 'write_file', description: 'Write a file.', input_schema: { type: 'object' } },
];
const SYSTEM = 'You are a website builder agent.';

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** Where the request's breakpoints are, as paths like the API's (`tools.1`, `messages.2.content.0`). */
function breakpointPaths(request: { tools: unknown[]; system: unknown; messages: TranscriptMessage[] }): string[] {
  const paths: string[] = [];
  const marked = (block: unknown) => typeof block === 'object' && block !== null && 'cache_control' in block;
  request.tools.forEach((tool, index) => marked(tool) && paths.push(`tools.${index}`));
  if (Array.isArray(request.system)) request.system.forEach((block, index) => marked(block) && paths.push(`system.${index}`));
  request.messages.forEach((message, messageIndex) => {
    if (typeof message.content === 'string') return;
    message.content.forEach((block, blockIndex) => marked(block) && paths.push(`messages.${messageIndex}.content.${blockIndex}`));
  });
  return paths;
}

// A thinking run's tool loop: [prompt] → [thinking, text, tool_use] → [tool_result] → [thinking, tool_use, tool_use] → [results].
const opening: TranscriptMessage = { role: 'user', content: [{ type: 'text', text: 'Build a bakery site.' }] };
const firstAnswer: TranscriptMessage = {
  role: 'assistant',
  content: [
    { type: 'thinking', thinking: 'Plan first.', signature: 'c2ln' },
    { type: 'text', text: 'Planning.' },
    { type: 'tool_use', id: 'toolu_1', name: 'todo_write', input: { todos: [] } },
  ],
};
const firstResults: TranscriptMessage = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] };
const secondAnswer: TranscriptMessage = {
  role: 'assistant',
  content: [
    { type: 'tool_use', id: 'toolu_2', name: 'write_file', input: { path: 'index.html', content: '<html></html>' } },
    { type: 'tool_use', id: 'toolu_3', name: 'write_file', input: { path: 'styles.css', content: 'body{}' } },
  ],
};
const secondResults: TranscriptMessage = {
  role: 'user',
  content: [
    { type: 'tool_result', tool_use_id: 'toolu_2', content: 'ok' },
    { type: 'tool_result', tool_use_id: 'toolu_3', content: 'ok' },
    { type: 'text', text: 'Two calls were answered.' },
  ],
};

describe('placeCacheBreakpoints', () => {
  it('marks the last tool, the system prompt, the previous request’s tail and the last block — never more than 4', () => {
    const placed = placeCacheBreakpoints({ tools: TOOLS, system: SYSTEM, messages: [opening, firstAnswer, firstResults, secondAnswer, secondResults], ttl: '5m' });
    expect(breakpointPaths(placed)).toEqual(['tools.1', 'system.0', 'messages.2.content.0', 'messages.4.content.2']);
    expect(breakpointPaths(placed).length).toBeLessThanOrEqual(MAXIMUM_CACHE_BREAKPOINTS);
    expect(placed.system).toEqual([{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral' } }]);
  });

  it('the first request has no earlier tail: three breakpoints', () => {
    const placed = placeCacheBreakpoints({ tools: TOOLS, system: SYSTEM, messages: [opening], ttl: '5m' });
    expect(breakpointPaths(placed)).toEqual(['tools.1', 'system.0', 'messages.0.content.0']);
  });

  it('a continued pause (the request ends with the assistant message) marks its last block that is not thinking', () => {
    const paused: TranscriptMessage = { role: 'assistant', content: [{ type: 'text', text: 'Working.' }, { type: 'redacted_thinking', data: 'ZGF0YQ==' }] };
    const placed = placeCacheBreakpoints({ tools: TOOLS, system: SYSTEM, messages: [opening, paused], ttl: '5m' });
    expect(breakpointPaths(placed)).toEqual(['tools.1', 'system.0', 'messages.0.content.0', 'messages.1.content.0']);
  });

  it('never marks a thinking block: an answer of thinking only gets none', () => {
    const onlyThinking: TranscriptMessage = { role: 'assistant', content: [{ type: 'thinking', thinking: 'Hmm.', signature: 'c2ln' }] };
    const placed = placeCacheBreakpoints({ tools: TOOLS, system: SYSTEM, messages: [opening, firstAnswer, firstResults, onlyThinking], ttl: '5m' });
    expect(breakpointPaths(placed)).toEqual(['tools.1', 'system.0', 'messages.2.content.0']);
    for (const message of placed.messages) {
      if (typeof message.content === 'string') continue;
      for (const block of message.content) if (block.type === 'thinking' || block.type === 'redacted_thinking') expect(block).not.toHaveProperty('cache_control');
    }
  });

  it('turns a string message into a text block so it can carry the breakpoint', () => {
    const placed = placeCacheBreakpoints({ tools: [], system: '', messages: [{ role: 'user', content: 'Build a site.' }], ttl: '5m' });
    expect(placed.system).toBe('');
    expect(placed.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Build a site.', cache_control: { type: 'ephemeral' } }] }]);
  });

  it('one lifetime for all: 1h everywhere, so no 1-hour breakpoint follows a 5-minute one', () => {
    const placed = placeCacheBreakpoints({ tools: TOOLS, system: SYSTEM, messages: [opening, firstAnswer, firstResults], ttl: '1h' });
    const controls = JSON.stringify(placed).match(/"cache_control":\{[^}]*\}/g) ?? [];
    expect(controls).toHaveLength(4);
    expect(new Set(controls)).toEqual(new Set(['"cache_control":{"type":"ephemeral","ttl":"1h"}']));
  });

  it('leaves the stored transcript and the tool definitions unchanged (frozen inputs, equal afterwards)', () => {
    const messages = deepFreeze([opening, firstAnswer, firstResults, secondAnswer, secondResults].map((message) => structuredClone(message)));
    const tools = deepFreeze(structuredClone(TOOLS));
    const before = JSON.stringify({ messages, tools });
    const placed = placeCacheBreakpoints({ tools, system: SYSTEM, messages, ttl: '5m' });
    expect(JSON.stringify({ messages, tools })).toBe(before);
    expect(before).not.toContain('cache_control');
    // Unmarked messages are the stored objects themselves; marked ones are copies.
    expect(placed.messages[1]).toBe(messages[1]);
    expect(placed.messages[4]).not.toBe(messages[4]);
  });

  it('the previous request’s prefix, through its last breakpoint, is byte-identical in the next request', () => {
    const earlier = placeCacheBreakpoints({ tools: TOOLS, system: SYSTEM, messages: [opening, firstAnswer, firstResults], ttl: '5m' });
    const later = placeCacheBreakpoints({ tools: TOOLS, system: SYSTEM, messages: [opening, firstAnswer, firstResults, secondAnswer, secondResults], ttl: '5m' });
    // As the cache compares it: a breakpoint that moved on is not part of the prefix (docs
    // prompt-caching: blocks "previously marked with a cache_control block are later not marked
    // with this, but they will still be considered a cache hit").
    const prefix = (request: typeof earlier) =>
      JSON.stringify({ tools: request.tools, system: request.system, messages: request.messages.slice(0, 3) }, (key, value: unknown) => (key === 'cache_control' ? undefined : value));
    expect(prefix(later)).toBe(prefix(earlier));
    // And the block the earlier request ended on carries the same breakpoint in the later one.
    expect(JSON.stringify(later.messages[2])).toBe(JSON.stringify(earlier.messages[2]));
  });
});

describe('placeCacheBreakpoints with mid-conversation system messages', () => {
  const phase: TranscriptMessage = {
    role: 'system',
    content: [
      { type: 'text', text: 'Current phase: building.' },
      { type: 'tool_addition', tool: { type: 'tool_reference', name: 'write_file' } },
    ],
  };

  it('never marks a system message: the last breakpoint goes on the user message before it, the tail skips it', () => {
    const request = placeCacheBreakpoints({ tools: TOOLS, system: SYSTEM, messages: [opening, firstAnswer, firstResults, phase], ttl: '5m' });
    expect(breakpointPaths(request)).toEqual(['tools.1', 'system.0', 'messages.0.content.0', 'messages.2.content.0']);
    expect(request.messages[3]).toBe(phase);
    const next = placeCacheBreakpoints({ tools: TOOLS, system: SYSTEM, messages: [opening, firstAnswer, firstResults, phase, secondAnswer, secondResults], ttl: '5m' });
    expect(breakpointPaths(next)).toEqual(['tools.1', 'system.0', 'messages.2.content.0', 'messages.5.content.2']);
  });

  it('marks the last tool that is not deferred', () => {
    const tools = [...TOOLS, { name: 'publish', description: 'Publish.', input_schema: { type: 'object' }, defer_loading: true }];
    expect(breakpointPaths(placeCacheBreakpoints({ tools, system: SYSTEM, messages: [opening], ttl: '5m' }))).toEqual(['tools.1', 'system.0', 'messages.0.content.0']);
  });
});
