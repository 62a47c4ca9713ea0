import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { addChatChunk, emptyChatAnswer, parseToolArguments, toModelResponseOfChat } from './openai-chat-answer.js';
import { mapFinishReason, OPENAI_FINISH_REASONS, UNKNOWN_FINISH_REASON_PREFIX } from './openai-finish-reason.js';

type Delta = OpenAI.Chat.ChatCompletionChunk.Choice.Delta;
const chunk = (delta: Delta, finish: string | null = null, extra: Record<string, unknown> = {}): OpenAI.Chat.ChatCompletionChunk =>
  ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'Qwen/Qwen2.5-7B-Instruct', choices: [{ index: 0, delta, finish_reason: finish, logprobs: null, ...extra }] }) as OpenAI.Chat.ChatCompletionChunk;
const usageChunk = (usage: OpenAI.CompletionUsage) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage }) as OpenAI.Chat.ChatCompletionChunk;
const STOPS = ['\n---END---', '\nUser:'];

function answerOf(chunks: OpenAI.Chat.ChatCompletionChunk[]) {
  const answer = emptyChatAnswer();
  for (const each of chunks) addChatChunk(answer, each);
  return toModelResponseOfChat({ answer, stopSequences: STOPS, estimatedPromptTokens: 999, fallbackModel: 'fallback' });
}

describe('a streamed chat completion as the canonical answer', () => {
  it('accumulates text and parallel tool calls (ids verbatim, arguments in pieces) and the usage chunk', () => {
    const response = answerOf([
      chunk({ role: 'assistant', content: 'Two ' }),
      chunk({ content: 'files.' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'write_file', arguments: '{"path":' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'read_file', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"a.html"}' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: '{"path":"b"}' } }] }),
      chunk({}, 'tool_calls'),
      usageChunk({ prompt_tokens: 1200, completion_tokens: 40, total_tokens: 1240, prompt_tokens_details: { cached_tokens: 1000 } }),
    ]);
    expect(response).toEqual({
      id: 'chatcmpl-1',
      model: 'Qwen/Qwen2.5-7B-Instruct',
      content: [
        { type: 'text', text: 'Two files.' },
        { type: 'tool_use', id: 'call_a', name: 'write_file', input: { path: 'a.html' } },
        { type: 'tool_use', id: 'call_b', name: 'read_file', input: { path: 'b' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 200, cache_write_5m_input_tokens: 0, cache_write_1h_input_tokens: 0, cache_read_input_tokens: 1000, output_tokens: 40 },
    });
  });

  it('keeps invalid arguments as an input naming the problem, for the schema check to refuse', () => {
    const response = answerOf([chunk({ tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'write_file', arguments: '{"path": ' } }] }, 'tool_calls')]);
    expect(response?.content[0]).toMatchObject({ type: 'tool_use', input: { INVALID_JSON: expect.stringContaining('"{\\"path\\": "') } });
    expect(parseToolArguments('')).toEqual({});
    expect(parseToolArguments('[1]')).toEqual([1]);
  });

  it('is null when the stream never finished (the provider throws ModelStreamIncompleteError)', () => {
    expect(answerOf([chunk({ content: 'half an ans' })])).toBeNull();
  });

  it('estimates the usage when the server sent no usage chunk', () => {
    expect(answerOf([chunk({ content: 'x'.repeat(40) }, 'stop')])?.usage).toMatchObject({ input_tokens: 999, output_tokens: 10 });
  });

  it('reads a finish with tool calls as tool_use even when the server says stop (vLLM, named tool_choice)', () => {
    const response = answerOf([chunk({ tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'todo_write', arguments: '{}' } }] }, 'stop')]);
    expect(response?.stop_reason).toBe('tool_use');
  });

  it('takes vLLM’s stop_reason as the matched stop sequence', () => {
    expect(answerOf([chunk({ content: 'hi' }, 'stop', { stop_reason: '\nUser:' })])).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: '\nUser:' });
    expect(answerOf([chunk({ content: 'hi' }, 'stop', { stop_reason: 128001 })])).toMatchObject({ stop_reason: 'end_turn', stop_sequence: null });
  });
});

describe('finish_reason → stop_reason', () => {
  const expected: Record<(typeof OPENAI_FINISH_REASONS)[number], string> = {
    stop: 'end_turn',
    length: 'max_tokens',
    tool_calls: 'tool_use',
    content_filter: 'refusal',
    function_call: 'tool_use',
  };
  it.each(OPENAI_FINISH_REASONS)('%s', (reason) => {
    expect(mapFinishReason({ finishReason: reason, matchedStop: null, stopSequences: STOPS, hasToolCalls: false }).stop_reason).toBe(expected[reason]);
  });
  it('an unknown one is named, for the handler to end the run unexpected_stop', () => {
    expect(mapFinishReason({ finishReason: 'abort', matchedStop: null, stopSequences: STOPS, hasToolCalls: false }).stop_reason).toBe(`${UNKNOWN_FINISH_REASON_PREFIX}abort`);
  });
});
