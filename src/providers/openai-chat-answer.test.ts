import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { addChatChunk, emptyChatAnswer, parseToolArguments, toModelResponseOfChat } from './openai-chat-answer.js';
import { isAbortedFinish, mapFinishReason, OPENAI_FINISH_REASONS, UNKNOWN_FINISH_REASON_PREFIX } from './openai-finish-reason.js';

type Delta = OpenAI.Chat.ChatCompletionChunk.Choice.Delta;
const chunk = (delta: Delta, finish: string | null = null, extra: Record<string, unknown> = {}): OpenAI.Chat.ChatCompletionChunk =>
  ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'Qwen/Qwen2.5-7B-Instruct', choices: [{ index: 0, delta, finish_reason: finish, logprobs: null, ...extra }] }) as OpenAI.Chat.ChatCompletionChunk;
const usageChunk = (usage: OpenAI.CompletionUsage) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage }) as OpenAI.Chat.ChatCompletionChunk;
const STOPS = ['\n---END---', '\nUser:'];

function answerOf(chunks: OpenAI.Chat.ChatCompletionChunk[]) {
  const answer = emptyChatAnswer();
  for (const each of chunks) addChatChunk(answer, each);
  return toModelResponseOfChat({ answer, stopSequences: STOPS, estimate: { promptTokens: 999, tokenizer: 'classic' }, fallbackModel: 'fallback' });
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

describe('tool calls streamed the way servers other than OpenAI stream them', () => {
  it('keeps Ollama’s parallel calls, each at index 0 with its own id, apart (ollama/ollama#15457)', () => {
    const response = answerOf([
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'write_file', arguments: '{"path":"a.html"}' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'call_b', type: 'function', function: { name: 'write_file', arguments: '{"path":"b.html"}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(response?.content).toEqual([
      { type: 'tool_use', id: 'call_a', name: 'write_file', input: { path: 'a.html' } },
      { type: 'tool_use', id: 'call_b', name: 'write_file', input: { path: 'b.html' } },
    ]);
    expect(response?.stop_reason).toBe('tool_use');
  });

  it('starts a call at a used index on a different function name when no id tells them apart', () => {
    const response = answerOf([
      chunk({ tool_calls: [{ index: 0, type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }] }),
      chunk({ tool_calls: [{ index: 0, type: 'function', function: { name: 'list_files', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(response?.content.map((block) => (block.type === 'tool_use' ? [block.name, block.input] : null))).toEqual([
      ['read_file', { path: 'a' }],
      ['list_files', {}],
    ]);
  });

  it('still joins one call’s pieces when a server repeats its id or name on every delta', () => {
    const response = answerOf([
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'write_file', arguments: '{"path":' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'write_file', arguments: '"a.html"}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(response?.content).toEqual([{ type: 'tool_use', id: 'call_a', name: 'write_file', input: { path: 'a.html' } }]);
  });

  it('joins one call whose every delta brings a fresh id, with or without its name (poolsideai/pool#9)', () => {
    for (const repeatName of [false, true]) {
      const fragment = (id: string, args: string) => chunk({ tool_calls: [{ index: 0, id, type: 'function', function: { ...(repeatName ? { name: 'read_file' } : {}), arguments: args } }] });
      const response = answerOf([
        chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '' } }] }),
        fragment('call_b', '{"path":'),
        fragment('call_c', '"x"}'),
        chunk({}, 'tool_calls'),
      ]);
      expect(response?.content).toEqual([{ type: 'tool_use', id: 'call_a', name: 'read_file', input: { path: 'x' } }]);
    }
  });

  it('keeps two complete calls of one function at index 0 without ids apart', () => {
    const response = answerOf([
      chunk({ tool_calls: [{ index: 0, type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }] }),
      chunk({ tool_calls: [{ index: 0, type: 'function', function: { name: 'read_file', arguments: '{"path":"b"}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(response?.content.map((block) => (block.type === 'tool_use' ? block.input : null))).toEqual([{ path: 'a' }, { path: 'b' }]);
  });

  it('appends calls without an index (Ollama before 0.4.7, ollama/ollama#7881) after the last, their later pieces to it', () => {
    const withoutIndex = (call: Record<string, unknown>) => chunk({ tool_calls: [call as never] });
    const response = answerOf([
      withoutIndex({ id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":' } }),
      withoutIndex({ function: { arguments: '"a"}' } }),
      withoutIndex({ id: 'call_b', type: 'function', function: { name: 'read_file', arguments: '{"path":"b"}' } }),
      chunk({}, 'tool_calls'),
    ]);
    expect(response?.content).toEqual([
      { type: 'tool_use', id: 'call_a', name: 'read_file', input: { path: 'a' } },
      { type: 'tool_use', id: 'call_b', name: 'read_file', input: { path: 'b' } },
    ]);
  });
});

describe('finish reasons that do not mean what they say', () => {
  it('reads tool_calls with no call (vLLM, vllm-project/vllm#53255) as end_turn, the text kept for recovery', () => {
    const response = answerOf([chunk({ content: '<tool_call>{"name":"list_files","arguments":{}}</tool_call>' }, 'tool_calls')]);
    expect(response).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: expect.stringContaining('<tool_call>') }] });
    expect(mapFinishReason({ finishReason: 'tool_calls', matchedStop: null, stopSequences: STOPS, hasToolCalls: true }).stop_reason).toBe('tool_use');
  });

  it('reads vLLM’s and SGLang’s abort as no answer (the provider throws ModelStreamIncompleteError)', () => {
    expect(isAbortedFinish('abort')).toBe(true);
    expect(answerOf([chunk({ content: 'half an ans' }), chunk({}, 'abort')])).toBeNull();
  });
});

describe('finish_reason → stop_reason', () => {
  // With calls in the answer when the reason says so (tool_calls, function_call), without otherwise.
  const expected: Record<(typeof OPENAI_FINISH_REASONS)[number], string> = {
    stop: 'end_turn',
    length: 'max_tokens',
    tool_calls: 'tool_use',
    content_filter: 'refusal',
    function_call: 'tool_use',
  };
  it.each(OPENAI_FINISH_REASONS)('%s', (reason) => {
    const hasToolCalls = reason === 'tool_calls' || reason === 'function_call';
    expect(mapFinishReason({ finishReason: reason, matchedStop: null, stopSequences: STOPS, hasToolCalls }).stop_reason).toBe(expected[reason]);
  });
  it('an unknown one is named, for the handler to end the run unexpected_stop', () => {
    expect(mapFinishReason({ finishReason: 'eos_token', matchedStop: null, stopSequences: STOPS, hasToolCalls: false }).stop_reason).toBe(`${UNKNOWN_FINISH_REASON_PREFIX}eos_token`);
  });
});
