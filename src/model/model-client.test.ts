import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { toModelResponse } from './model-client.js';

function message(content: unknown[]): Anthropic.Message {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-6',
    content,
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  } as unknown as Anthropic.Message;
}

describe('toModelResponse', () => {
  it('keeps an answer whose streamed tool input is not JSON, with an input the schema check refuses', () => {
    // The SDK's stream snapshot parses input_json_delta text lazily and throws on invalid JSON.
    const broken = { type: 'tool_use', id: 'toolu_1', name: 'write_file' } as Record<string, unknown>;
    Object.defineProperty(broken, 'input', { enumerable: true, get: () => { throw new SyntaxError('Unexpected token } in JSON'); } });
    const response = toModelResponse(message([broken]));
    expect(response.content).toEqual([{ type: 'tool_use', id: 'toolu_1', name: 'write_file', input: { INVALID_JSON: 'Unexpected token } in JSON' } }]);
  });

  it('keeps every usage class the API reports, cache writes by lifetime', () => {
    const answer = {
      ...message([]),
      usage: {
        input_tokens: 12,
        cache_creation_input_tokens: 700,
        cache_read_input_tokens: 5000,
        cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 500 },
        output_tokens: 40,
      },
    } as unknown as Anthropic.Message;
    expect(toModelResponse(answer).usage).toEqual({ input_tokens: 12, cache_write_5m_input_tokens: 200, cache_write_1h_input_tokens: 500, cache_read_input_tokens: 5000, output_tokens: 40 });
  });

  it('keeps thinking blocks exactly as the API sent them', () => {
    const thinking = { type: 'thinking', thinking: 'Plan first.', signature: 'c2ln' };
    const response = toModelResponse(message([thinking, { type: 'text', text: 'Planning.', citations: null }]));
    expect(response.content).toEqual([thinking, { type: 'text', text: 'Planning.' }]);
  });
});
