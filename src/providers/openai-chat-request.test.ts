import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../model/model-client.js';
import { toChatCompletionRequest, toChatMessages, toChatToolChoice } from './openai-chat-request.js';

const base: ModelRequest = {
  model: 'claude-sonnet-4-6',
  maxTokens: 4096,
  system: [{ type: 'text', text: 'You build sites.', cache_control: { type: 'ephemeral' } }],
  messages: [
    { role: 'user', content: 'Build a bakery site.' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'plan first', signature: 'sig' },
        { type: 'text', text: 'Writing two files.' },
        { type: 'tool_use', id: 'toolu_A1', name: 'write_file', input: { path: 'index.html', content: '<h1>' } },
        { type: 'tool_use', id: 'call_xyz', name: 'write_file', input: { path: 'a.css', content: '' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_A1', content: 'wrote 4 bytes' },
        { type: 'tool_result', tool_use_id: 'call_xyz', content: 'error: disk full', is_error: true },
        { type: 'text', text: 'Continue.' },
      ],
    },
  ],
  tools: [{ name: 'write_file', description: 'Writes a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } }, cache_control: { type: 'ephemeral' } }],
  toolChoice: { type: 'auto' },
  stopSequences: ['\n---END---', '\nUser:', 'a', 'b', 'c'],
  headers: { 'x-buildfleet-run-id': 'run_1' },
};

describe('the canonical request as a chat completion', () => {
  const body = toChatCompletionRequest(base, 'Qwen/Qwen2.5-7B-Instruct');

  it('sends the server’s model id, max_tokens, streaming with usage, at most four stop sequences', () => {
    expect(body).toMatchObject({ model: 'Qwen/Qwen2.5-7B-Instruct', max_tokens: 4096, stream: true, stream_options: { include_usage: true } });
    expect(body.stop).toEqual(['\n---END---', '\nUser:', 'a', 'b']);
  });

  it('maps system, text, tool calls with the same ids and tool results as tool messages, dropping thinking', () => {
    expect(body.messages).toEqual([
      { role: 'system', content: 'You build sites.' },
      { role: 'user', content: 'Build a bakery site.' },
      {
        role: 'assistant',
        content: 'Writing two files.',
        tool_calls: [
          { id: 'toolu_A1', type: 'function', function: { name: 'write_file', arguments: '{"path":"index.html","content":"<h1>"}' } },
          { id: 'call_xyz', type: 'function', function: { name: 'write_file', arguments: '{"path":"a.css","content":""}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_A1', content: 'wrote 4 bytes' },
      { role: 'tool', tool_call_id: 'call_xyz', content: 'error: disk full' },
      { role: 'user', content: 'Continue.' },
    ]);
  });

  it('sends tools as functions without cache_control', () => {
    expect(body.tools).toEqual([{ type: 'function', function: { name: 'write_file', description: 'Writes a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } }]);
    expect(body.tool_choice).toBe('auto');
  });

  it('sends an assistant message of calls only with null content', () => {
    const only = toChatCompletionRequest({ ...base, messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'x', input: {} }] }] }, 'm');
    expect(only.messages.at(-1)).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'x', arguments: '{}' } }] });
  });

  it('merges a provider’s extraBody at the top level, the fleet’s own fields always winning', () => {
    const extra = toChatCompletionRequest(base, 'm', { extraBody: { skip_special_tokens: false, model: 'other', stream: false } });
    expect(extra).toMatchObject({ skip_special_tokens: false, model: 'm', stream: true });
    expect(toChatCompletionRequest(base, 'm')).not.toHaveProperty('skip_special_tokens');
  });

  it('maps every tool_choice', () => {
    expect(toChatToolChoice({ type: 'auto' })).toBe('auto');
    expect(toChatToolChoice({ type: 'none' })).toBe('none');
    expect(toChatToolChoice({ type: 'any' })).toBe('required');
    expect(toChatToolChoice({ type: 'tool', name: 'todo_write' })).toEqual({ type: 'function', function: { name: 'todo_write' } });
  });

  it('without a tool parser on the server, sends a turn left to the model as none, the tools kept, forced turns unchanged', () => {
    const noParser = toChatCompletionRequest(base, 'm', { toolParser: false });
    expect(noParser.tool_choice).toBe('none');
    expect(noParser.tools).toEqual(body.tools);
    expect(toChatToolChoice({ type: 'auto' }, false)).toBe('none');
    expect(toChatToolChoice({ type: 'none' }, false)).toBe('none');
    expect(toChatToolChoice({ type: 'any' }, false)).toBe('required');
    expect(toChatToolChoice({ type: 'tool', name: 'todo_write' }, false)).toEqual({ type: 'function', function: { name: 'todo_write' } });
    expect(toChatCompletionRequest(base, 'm', { toolParser: true }).tool_choice).toBe('auto');
  });
});

describe('a mid-conversation system message as chat messages', () => {
  it('becomes a chat system message with its text; the tool changes, which chat completions has no field for, are dropped', () => {
    expect(
      toChatMessages({
        role: 'system',
        content: [
          { type: 'text', text: 'Current phase: building.' },
          { type: 'tool_addition', tool: { type: 'tool_reference', name: 'write_file' } },
        ],
      }),
    ).toEqual([{ role: 'system', content: 'Current phase: building.' }]);
    expect(toChatMessages({ role: 'system', content: [{ type: 'tool_removal', tool: { type: 'tool_reference', name: 'deploy' } }] })).toEqual([]);
  });
});
