import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { createStreamProgressTracker } from './stream-progress.js';

const event = (value: unknown) => value as Anthropic.MessageStreamEvent;

describe('stream progress', () => {
  it('reports at most once per interval, estimating tokens from the deltas until message_delta counts them', () => {
    let clock = 0;
    const tracker = createStreamProgressTracker({ intervalMs: 2000, tokenizer: 'classic', now: () => clock });
    expect(tracker.observe(event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }))).toBeNull();
    clock = 1000;
    expect(tracker.observe(event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x'.repeat(400) } }))).toBeNull();
    clock = 2000;
    expect(tracker.observe(event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'y'.repeat(400) } }))).toMatchObject({
      outputTokens: 200,
      estimated: true,
      blockKind: 'text',
      tool: null,
      reason: 'interval',
      elapsedMs: 2000,
    });
    clock = 3000;
    expect(tracker.observe(event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'z' } }))).toBeNull();
    clock = 4500;
    expect(tracker.observe(event({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 321 } }))).toMatchObject({
      outputTokens: 321,
      estimated: false,
    });
  });

  it('always reports a tool_use block starting, with the tool being written', () => {
    let clock = 0;
    const tracker = createStreamProgressTracker({ intervalMs: 60_000, tokenizer: 'classic', now: () => clock });
    tracker.observe(event({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }));
    tracker.observe(event({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'a'.repeat(40) } }));
    clock = 10;
    expect(tracker.observe(event({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'write_file', input: {} } }))).toMatchObject({
      reason: 'tool_start',
      blockKind: 'tool_use',
      tool: 'write_file',
      blocks: 2,
      outputTokens: 10,
    });
    expect(tracker.observe(event({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"path":' } }))).toBeNull();
  });

  it('estimates in the model’s tokenizer: the newer one makes 30% more tokens of the same deltas', () => {
    let clock = 0;
    const tracker = createStreamProgressTracker({ intervalMs: 1000, tokenizer: 'newer', now: () => clock });
    tracker.observe(event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }));
    clock = 1000;
    expect(tracker.observe(event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x'.repeat(800) } }))).toMatchObject({ outputTokens: 260, estimated: true });
    expect(tracker.outputTokensSoFar()).toBe(260);
  });
});
