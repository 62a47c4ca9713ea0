import OpenAI, { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { parseTextToolCall } from '../parse-text-tool-call.js';
import { startSimulator } from '../simulator-server.js';
import { CHAT_MODEL, FIRST_TURN, useChatSimulator } from './testing/chat-simulator-client.js';
import { formatTextToolCall, TEXT_TOOL_CALL_FORMATS } from '../text-tool-call-format.js';
import { chatToolsFor, runChatBuild } from './chat-build.js';
import { readChatStream } from './read-chat-stream.js';

const MODEL = CHAT_MODEL;
const OFF = { 'x-buildfleet-text-calls': 'off' };

const chat = useChatSimulator();

/** The transcript right after the plan was written: the next turn calls set_colors and set_fonts together. */
async function afterPlan(): Promise<OpenAI.Chat.Completions.ChatCompletionMessageParam[]> {
  const first = await chat.client().chat.completions.create({ model: MODEL, messages: FIRST_TURN, tools: chatToolsFor('planning') }, { headers: OFF });
  const call = first.choices[0]?.message.tool_calls?.[0];
  if (call?.type !== 'function') throw new Error('expected a tool call');
  return [
    ...FIRST_TURN,
    { role: 'assistant', content: first.choices[0]?.message.content ?? null, tool_calls: [call] },
    { role: 'tool', tool_call_id: call.id, content: '<tool_output tool="todo_write" trust="untrusted">\n{"ok":true}\n</tool_output>' },
  ];
}

describe('a build through the real openai SDK', () => {
  it('runs to the summary with native tool calls, parallel ones included, answered by id', async () => {
    const result = await runChatBuild({ client: chat.client(), model: MODEL, headers: OFF });
    expect(result.finalText).not.toBeNull();
    const names = result.toolCalls.map((call) => call.name);
    expect(names[0]).toBe('todo_write');
    expect(names).toContain('finish_turn');
    expect(result.toolCalls.every((call) => /^call_[0-9A-Za-z]{24}$/.test(call.id))).toBe(true);
    expect(result.completions.some((completion) => (completion.choices[0]?.message.tool_calls?.length ?? 0) > 1)).toBe(true);
    for (const completion of result.completions) {
      expect(completion.object).toBe('chat.completion');
      expect(completion.model).toBe(MODEL);
      const choice = completion.choices[0];
      expect(choice?.finish_reason).toBe(choice?.message.tool_calls ? 'tool_calls' : 'stop');
      expect(completion.usage?.total_tokens).toBe((completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0));
    }
    // Automatic prompt caching: each request reads the prefix the one before it wrote.
    expect(result.completions.at(-1)?.usage?.prompt_tokens_details?.cached_tokens).toBeGreaterThan(0);
  });

  it('streams the same build: finalChatCompletion() holds the calls the JSON answers held', async () => {
    const json = await runChatBuild({ client: chat.client(), model: MODEL, headers: OFF });
    const streamed = await runChatBuild({ client: chat.client(), model: MODEL, headers: OFF, stream: true });
    expect(streamed.finalText).toBe(json.finalText);
    expect(streamed.toolCalls.map((call) => call.name)).toEqual(json.toolCalls.map((call) => call.name));
    expect(streamed.completions.map((completion) => completion.choices[0]?.finish_reason)).toEqual(
      json.completions.map((completion) => completion.choices[0]?.finish_reason),
    );
    expect(streamed.completions.map((completion) => completion.usage?.completion_tokens)).toEqual(
      json.completions.map((completion) => completion.usage?.completion_tokens),
    );
  });

  it('records the requests with their endpoint, finish reason and usage', async () => {
    await chat.client().chat.completions.create({ model: MODEL, messages: FIRST_TURN, tools: chatToolsFor('planning') }, { headers: OFF });
    const log = (await (await fetch(`${chat.simulator().url}/_sim/requests`)).json()) as { requests: Array<Record<string, unknown>> };
    const last = log.requests.at(-1);
    expect(last).toMatchObject({ path: '/v1/chat/completions', endpoint: 'chat-completions', status: 200, stopReason: 'tool_calls', model: MODEL, source: 'policy' });
    expect((last?.usage as { output_tokens: number }).output_tokens).toBeGreaterThan(0);
  });
});

describe('tool calls', () => {
  it('sends parallel calls unless parallel_tool_calls is false', async () => {
    const messages = await afterPlan();
    const tools = chatToolsFor('building');
    const parallel = await chat.client().chat.completions.create({ model: MODEL, messages, tools }, { headers: OFF });
    expect(parallel.choices[0]?.message.tool_calls?.map((call) => (call.type === 'function' ? call.function.name : call.type))).toEqual(['set_colors', 'set_fonts']);
    const single = await chat.client().chat.completions.create({ model: MODEL, messages, tools, parallel_tool_calls: false }, { headers: OFF });
    expect(single.choices[0]?.message.tool_calls).toHaveLength(1);
    expect(single.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('honours tool_choice required and a named function', async () => {
    const tools = chatToolsFor('planning');
    const named = await chat.client().chat.completions.create(
      { model: MODEL, messages: FIRST_TURN, tools, tool_choice: { type: 'function', function: { name: 'todo_write' } } },
      { headers: OFF },
    );
    const call = named.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.name).toBe('todo_write');
    const required = await chat.client().chat.completions.create({ model: MODEL, messages: FIRST_TURN, tools, tool_choice: 'required' }, { headers: OFF });
    expect(required.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('writes the stream grammar: role first, call head then argument fragments on its index, finish, usage, [DONE]', async () => {
    const response = await fetch(`${chat.simulator().url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sim', ...OFF },
      body: JSON.stringify({ model: MODEL, messages: await afterPlan(), tools: chatToolsFor('building'), stream: true, stream_options: { include_usage: true } }),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const { chunks, done } = await readChatStream(response);
    expect(done).toBe(true);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0]?.choices?.[0]?.delta).toEqual({ role: 'assistant', content: '' });
    const deltas = chunks.flatMap((chunk) => chunk.choices?.map((choice) => choice.delta) ?? []);
    const callDeltas = deltas.flatMap((delta) => (delta.tool_calls as Array<Record<string, any>> | undefined) ?? []);
    const heads = callDeltas.filter((delta) => delta.id !== undefined);
    expect(heads.map((head) => [head.index, head.type, head.function.name, head.function.arguments])).toEqual([
      [0, 'function', 'set_colors', ''],
      [1, 'function', 'set_fonts', ''],
    ]);
    for (const index of [0, 1]) {
      const text = callDeltas.filter((delta) => delta.index === index).map((delta) => delta.function.arguments).join('');
      expect(() => JSON.parse(text)).not.toThrow();
    }
    const finish = chunks.at(-2);
    expect(finish?.choices?.[0]).toMatchObject({ delta: {}, finish_reason: 'tool_calls' });
    const usage = chunks.at(-1);
    expect(usage?.choices).toEqual([]);
    expect(usage?.usage).toMatchObject({ completion_tokens: expect.any(Number), prompt_tokens: expect.any(Number) });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
  });
});

describe('finish reasons', () => {
  it('cuts at max_tokens with finish_reason length, JSON and streamed alike', async () => {
    const body = { model: MODEL, messages: FIRST_TURN, tools: chatToolsFor('planning'), max_tokens: 20 };
    const json = await chat.client().chat.completions.create(body, { headers: OFF });
    const streamed = await chat.client().chat.completions.stream({ ...body, stream_options: { include_usage: true } }, { headers: OFF }).finalChatCompletion();
    for (const completion of [json, streamed]) {
      expect(completion.choices[0]?.finish_reason).toBe('length');
      expect(completion.usage?.completion_tokens).toBe(20);
    }
    const cut = json.choices[0]?.message.tool_calls?.[0];
    expect(cut?.type === 'function' && cut.function.arguments.length).toBeGreaterThan(0);
    expect(() => JSON.parse(cut?.type === 'function' ? cut.function.arguments : '')).toThrow();
    const streamedCut = streamed.choices[0]?.message.tool_calls?.[0];
    expect(streamedCut?.type === 'function' && streamedCut.function.arguments).toBe(cut?.type === 'function' && cut.function.arguments);
  });

  it('answers the refusal scenario with finish_reason content_filter', async () => {
    const completion = await chat.client().chat.completions.create(
      { model: MODEL, messages: FIRST_TURN, tools: chatToolsFor('planning') },
      { headers: { ...OFF, 'x-buildfleet-scenario': 'refusal' } },
    );
    expect(completion.choices[0]?.finish_reason).toBe('content_filter');
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
  });
});

describe('tool calls written as text', () => {
  it.each(TEXT_TOOL_CALL_FORMATS)('%s: the call arrives as content with finish_reason stop, JSON and streamed', async (format) => {
    const headers = { 'x-buildfleet-text-calls': 'always', 'x-buildfleet-text-format': format };
    const body = { model: 'meta-llama/Llama-3.1-8B-Instruct', messages: FIRST_TURN, tools: chatToolsFor('planning') };
    const json = await chat.client().chat.completions.create(body, { headers });
    const streamed = await chat.client().chat.completions.stream(body, { headers }).finalChatCompletion();
    for (const completion of [json, streamed]) {
      const choice = completion.choices[0];
      expect(choice?.finish_reason).toBe('stop');
      expect(choice?.message.tool_calls ?? []).toEqual([]);
      const call = parseTextToolCall({ text: choice?.message.content ?? '' });
      expect(call?.name).toBe('todo_write');
      expect(choice?.message.content).toBe(formatTextToolCall({ format, call: call ?? { name: '', input: {} } }));
    }
  });

  it('refuses an unknown format', async () => {
    const error = await chat.client().chat.completions
      .create({ model: MODEL, messages: FIRST_TURN }, { headers: { 'x-buildfleet-text-format': 'smoke_signals' } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as APIError).message).toContain('x-buildfleet-text-format: unknown text tool-call format "smoke_signals"');
  });

  it.each([
    ['mistralai/Mistral-7B-Instruct-v0.3', ['mistral', 'mistral_v13']],
    ['Qwen/Qwen2.5-7B-Instruct', ['tool_call_tag']],
    ['ibm-granite/granite-3.1-8b-instruct', ['granite']],
  ] as const)('%s drifts into its own family format when no format is pinned', async (model, formats) => {
    const completion = await chat.client().chat.completions.create(
      { model, messages: FIRST_TURN, tools: chatToolsFor('planning') },
      { headers: { 'x-buildfleet-text-calls': 'always' } },
    );
    const content = completion.choices[0]?.message.content ?? '';
    const call = parseTextToolCall({ text: content });
    expect(call?.name).toBe('todo_write');
    expect(formats.map((format) => formatTextToolCall({ format, call: call ?? { name: '', input: {} } }))).toContain(content);
  });

  it('accepts a vLLM parser name as the format (hermes is tool_call_tag)', async () => {
    const completion = await chat.client().chat.completions.create(
      { model: MODEL, messages: FIRST_TURN, tools: chatToolsFor('planning') },
      { headers: { 'x-buildfleet-text-calls': 'always', 'x-buildfleet-text-format': 'hermes' } },
    );
    expect(completion.choices[0]?.message.content).toMatch(/^<tool_call>/);
  });
});

describe('faults in OpenAI shapes', () => {
  it('a mid-stream error arrives as data: {"error": …}, which the SDK throws as APIError', async () => {
    const stream = chat.client().chat.completions.stream(
      { model: MODEL, messages: FIRST_TURN, tools: chatToolsFor('planning') },
      { headers: { ...OFF, 'x-buildfleet-fault': 'stream_error:5' } },
    );
    const error = await stream.finalChatCompletion().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBeUndefined();
    expect((error as APIError).type).toBe('server_error');
    expect((error as APIError).message).toContain('Overloaded');
  });

  it('overloaded is 503 with the error envelope; a non-streaming stream_error gets its HTTP error', async () => {
    const overloaded = await chat.client().chat.completions
      .create({ model: MODEL, messages: FIRST_TURN }, { headers: { 'x-buildfleet-fault': 'overloaded' } })
      .catch((caught: unknown) => caught);
    expect(overloaded).toBeInstanceOf(OpenAI.InternalServerError);
    expect((overloaded as APIError).status).toBe(503);
    expect((overloaded as APIError).type).toBe('server_error');
    const streamError = await chat.client().chat.completions
      .create({ model: MODEL, messages: FIRST_TURN }, { headers: { 'x-buildfleet-fault': 'stream_error:0:api_error' } })
      .catch((caught: unknown) => caught);
    expect((streamError as APIError).status).toBe(500);
  });

  it('a rate_limit fault is a 429 rate_limit_exceeded with its retry-after', async () => {
    const error = await chat.client().chat.completions
      .create({ model: MODEL, messages: FIRST_TURN }, { headers: { 'x-buildfleet-fault': 'rate_limit:7' } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as APIError).code).toBe('rate_limit_exceeded');
    expect((error as APIError).headers?.get('retry-after')).toBe('7');
  });
});

describe('rate limits', () => {
  it('answers with the x-ratelimit-* headers and a 429 from the same buckets once they are empty', async () => {
    const limited = await startSimulator({ seed: 1, rateLimits: { requestsPerMinute: 1 } });
    try {
      const limitedClient = new OpenAI({ apiKey: 'sim', baseURL: `${limited.url}/v1`, maxRetries: 0 });
      const { response } = await limitedClient.chat.completions.create({ model: MODEL, messages: FIRST_TURN }).withResponse();
      expect(response.headers.get('x-ratelimit-limit-requests')).toBe('1');
      expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('0');
      expect(response.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+ms|(\d+m)?[\d.]+s)$/);
      expect(Number(response.headers.get('x-ratelimit-limit-tokens'))).toBeGreaterThan(0);
      expect(response.headers.get('x-ratelimit-remaining-tokens')).not.toBeNull();
      expect(response.headers.get('x-ratelimit-reset-tokens')).not.toBeNull();
      const error = await limitedClient.chat.completions.create({ model: MODEL, messages: FIRST_TURN }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.RateLimitError);
      const refused = error as APIError;
      expect(refused.code).toBe('rate_limit_exceeded');
      expect(refused.type).toBe('requests');
      expect(Number(refused.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers?.get('x-ratelimit-remaining-requests')).toBe('0');
      expect(refused.message).toContain(`Rate limit reached for ${MODEL}`);
    } finally {
      await limited.close();
    }
  });
});
