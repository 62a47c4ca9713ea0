// Every refusal of the chat completions endpoint, over real HTTP: status and the OpenAI error body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../simulator-server.js';

const MODEL = 'Qwen/Qwen2.5-7B-Instruct';
const USER = { role: 'user', content: 'Build a site.' };
const TOOL = { type: 'function', function: { name: 'todo_write', parameters: { type: 'object', properties: {} } } };
const CALL = (id: string) => ({ id, type: 'function', function: { name: 'todo_write', arguments: '{}' } });

let simulator: RunningSimulator;
beforeAll(async () => (simulator = await startSimulator({ seed: 1 })));
afterAll(() => simulator.close());

async function post(body: string): Promise<{ status: number; error: Record<string, unknown> }> {
  const response = await fetch(`${simulator.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sim' },
    body,
  });
  const json = (await response.json()) as { error: Record<string, unknown> };
  return { status: response.status, error: json.error };
}

interface Case {
  name: string;
  body: unknown;
  status?: number;
  message: string | RegExp;
  param?: string | null;
  code?: string | null;
}

const CASES: Case[] = [
  { name: 'no model', body: { messages: [USER] }, message: 'you must provide a model parameter', param: null, code: null },
  { name: 'no messages', body: { model: MODEL }, message: "Missing required parameter: 'messages'.", param: 'messages', code: 'missing_required_parameter' },
  { name: 'empty messages', body: { model: MODEL, messages: [] }, message: /empty array/, param: 'messages', code: 'empty_array' },
  { name: 'messages not a list', body: { model: MODEL, messages: 'hi' }, message: "Invalid type for 'messages': expected an array, but got a string instead.", code: 'invalid_type' },
  { name: 'unknown role', body: { model: MODEL, messages: [{ role: 'robot', content: 'x' }] }, message: /^Invalid value: 'robot'\. Supported values are/, param: 'messages[0].role', code: 'invalid_value' },
  {
    name: 'unknown model',
    body: { model: 'gpt-9', messages: [USER] },
    status: 404,
    message: 'The model `gpt-9` does not exist or you do not have access to it.',
    code: 'model_not_found',
  },
  {
    name: 'a tool message with no tool_calls before it',
    body: { model: MODEL, messages: [USER, { role: 'tool', tool_call_id: 'call_1', content: 'x' }] },
    message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    param: 'messages.[1].role',
  },
  {
    name: 'a tool message answering an id the assistant did not send',
    body: { model: MODEL, tools: [TOOL], messages: [USER, { role: 'assistant', content: null, tool_calls: [CALL('call_1')] }, { role: 'tool', tool_call_id: 'call_2', content: 'x' }] },
    message: "Invalid parameter: 'tool_call_id' of 'call_2' not found in 'tool_calls' of previous message.",
    param: 'messages.[2].tool_call_id',
  },
  {
    name: 'a tool call left unanswered before the next user message',
    body: {
      model: MODEL,
      tools: [TOOL],
      messages: [USER, { role: 'assistant', content: null, tool_calls: [CALL('call_1'), CALL('call_2')] }, { role: 'tool', tool_call_id: 'call_1', content: 'x' }, USER],
    },
    message: /The following tool_call_ids did not have response messages: call_2$/,
    param: 'messages.[1].role',
  },
  {
    name: 'a tool call left unanswered at the end',
    body: { model: MODEL, tools: [TOOL], messages: [USER, { role: 'assistant', content: null, tool_calls: [CALL('call_1')] }] },
    message: /must be followed by tool messages responding to each 'tool_call_id'/,
    param: 'messages.[1].role',
  },
  {
    name: 'a tool message without tool_call_id',
    body: { model: MODEL, messages: [USER, { role: 'tool', content: 'x' }] },
    message: "Missing required parameter: 'messages[1].tool_call_id'.",
    code: 'missing_required_parameter',
  },
  {
    name: 'arguments sent as an object',
    body: { model: MODEL, tools: [TOOL], messages: [USER, { role: 'assistant', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'todo_write', arguments: {} } }] }] },
    message: "Invalid type for 'messages[1].tool_calls[0].function.arguments': expected a string, but got an object instead.",
    code: 'invalid_type',
  },
  {
    name: 'tool_choice naming a tool not offered',
    body: { model: MODEL, messages: [USER], tools: [TOOL], tool_choice: { type: 'function', function: { name: 'deploy' } } },
    message: 'The tool specified in `tool_choice` does not match any of the specified `tools`',
    param: 'tool_choice',
  },
  {
    name: 'tool_choice without tools',
    body: { model: MODEL, messages: [USER], tool_choice: 'required' },
    message: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
    param: 'tool_choice',
  },
  { name: 'an unknown tool_choice', body: { model: MODEL, messages: [USER], tools: [TOOL], tool_choice: 'any' }, message: /^Invalid value: 'any'/, code: 'invalid_value' },
  {
    name: 'a function name outside the pattern',
    body: { model: MODEL, messages: [USER], tools: [{ type: 'function', function: { name: 'write file' } }] },
    message: /string does not match pattern/,
    param: 'tools[0].function.name',
  },
  {
    name: 'parameters that are not an object schema',
    body: { model: MODEL, messages: [USER], tools: [{ type: 'function', function: { name: 'x', parameters: { type: 'string' } } }] },
    message: /schema must be a JSON Schema of 'type: "object"'/,
    code: 'invalid_function_parameters',
  },
  { name: 'stream_options without stream', body: { model: MODEL, messages: [USER], stream_options: { include_usage: true } }, message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.", param: 'stream_options' },
  { name: 'max_tokens below 1', body: { model: MODEL, messages: [USER], max_tokens: 0 }, message: /integer below minimum value/, code: 'integer_below_min_value' },
  {
    name: 'max_tokens above a Claude model output cap',
    body: { model: 'claude-sonnet-4-6', messages: [USER], max_tokens: 10_000_000 },
    message: /^max_tokens is too large: 10000000\. This model supports at most \d+ completion tokens/,
    param: 'max_tokens',
  },
  {
    name: 'prompt + max_tokens over an open model window',
    body: { model: MODEL, messages: [USER], max_tokens: 32_768 },
    message: /^This model's maximum context length is 32768 tokens\. However, you requested \d+ tokens/,
    code: 'context_length_exceeded',
  },
  { name: 'a prompt over the window', body: { model: MODEL, messages: [{ role: 'user', content: 'x'.repeat(140_000) }] }, message: /^This model's maximum context length is 32768 tokens\. However, your messages resulted in/, code: 'context_length_exceeded' },
  { name: 'five stop sequences', body: { model: MODEL, messages: [USER], stop: ['a', 'b', 'c', 'd', 'e'] }, message: /array too long/, code: 'array_above_max_length' },
  { name: 'temperature above 2', body: { model: MODEL, messages: [USER], temperature: 3 }, message: /decimal above maximum value/, param: 'temperature' },
  { name: 'stream not a boolean', body: { model: MODEL, messages: [USER], stream: 'yes' }, message: "Invalid type for 'stream': expected a boolean, but got a string instead.", code: 'invalid_type' },
];

describe('POST /v1/chat/completions refusals', () => {
  it.each(CASES)('$name', async ({ body, status = 400, message, param, code }) => {
    const answer = await post(JSON.stringify(body));
    expect(answer.status).toBe(status);
    expect(answer.error.type).toBe('invalid_request_error');
    if (typeof message === 'string') expect(answer.error.message).toBe(message);
    else expect(answer.error.message).toMatch(message);
    if (param !== undefined) expect(answer.error.param).toBe(param);
    if (code !== undefined) expect(answer.error.code).toBe(code);
    expect(Object.keys(answer.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  });

  it('a body that is not JSON', async () => {
    const answer = await post('{"model": ');
    expect(answer.status).toBe(400);
    expect(answer.error).toMatchObject({ type: 'invalid_request_error', param: null, code: null });
    expect(answer.error.message).toMatch(/^We could not parse the JSON body of your request\./);
  });

  it('accepts what the rules allow: answered calls, tool messages in any order, a system prompt anywhere, unknown fields', async () => {
    const answer = await fetch(`${simulator.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sim' },
      body: JSON.stringify({
        model: MODEL,
        tools: [TOOL],
        top_k: 20,
        messages: [
          { role: 'developer', content: 'Be brief.' },
          USER,
          { role: 'assistant', content: null, tool_calls: [CALL('call_1'), CALL('weird id/with:colons')] },
          { role: 'tool', tool_call_id: 'weird id/with:colons', content: [{ type: 'text', text: 'done' }] },
          { role: 'tool', tool_call_id: 'call_1', content: 'done' },
          { role: 'system', content: 'Keep going.' },
        ],
      }),
    });
    expect(answer.status).toBe(200);
  });
});
