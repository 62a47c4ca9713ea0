// A server without a tool parser (x-buildfleet-tool-parser: none), over real HTTP through the
// openai SDK: vLLM's 400 for `auto` (given or implied), a call written as text under `none`, native
// calls for `required` and a named tool; and the default server, which takes `auto`.
import OpenAI, { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { parseTextToolCall } from '../parse-text-tool-call.js';
import { CHAT_MODEL, FIRST_TURN, useChatSimulator } from './testing/chat-simulator-client.js';
import { chatToolsFor } from './chat-build.js';
import { AUTO_TOOL_CHOICE_WITHOUT_PARSER } from './chat-tool-parser.js';

const MODEL = CHAT_MODEL;
const NO_PARSER = { 'x-buildfleet-tool-parser': 'none' };
const TOOLS = chatToolsFor('planning');

const chat = useChatSimulator();

describe('a server without a tool parser', () => {
  it.each([
    ['tool_choice auto', { tool_choice: 'auto' as const }],
    ['no tool_choice with tools (vLLM defaults it to auto)', {}],
  ])('refuses %s with vLLM’s 400', async (_name, choice) => {
    const error = await chat.client().chat.completions.create({ model: MODEL, messages: FIRST_TURN, tools: TOOLS, ...choice }, { headers: NO_PARSER }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as APIError).status).toBe(400);
    expect((error as APIError).message).toContain(AUTO_TOOL_CHOICE_WITHOUT_PARSER);
    expect((error as APIError).type).toBe('BadRequestError');
  });

  it('answers a request without tools', async () => {
    const completion = await chat.client().chat.completions.create({ model: MODEL, messages: FIRST_TURN }, { headers: NO_PARSER });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
  });

  it('under tool_choice none the model still calls, in its family’s text format (JSON and streamed); x-buildfleet-text-calls does not change it', async () => {
    const body = { model: MODEL, messages: FIRST_TURN, tools: TOOLS, tool_choice: 'none' as const };
    const json = await chat.client().chat.completions.create(body, { headers: NO_PARSER });
    const streamed = await chat.client().chat.completions.stream(body, { headers: NO_PARSER }).finalChatCompletion();
    const textCallsOff = await chat.client().chat.completions.create(body, { headers: { ...NO_PARSER, 'x-buildfleet-text-calls': 'off' } });
    for (const completion of [json, streamed, textCallsOff]) {
      const choice = completion.choices[0];
      expect(choice?.finish_reason).toBe('stop');
      expect(choice?.message.tool_calls ?? []).toEqual([]);
      // Qwen's family format (Hermes' <tool_call>), the one the chat model catalog gives it.
      expect(choice?.message.content).toMatch(/^<tool_call>/);
      expect(parseTextToolCall({ text: choice?.message.content ?? '' })?.name).toBe('todo_write');
    }
  });

  it.each([
    ['required', 'required' as const],
    ['a named tool', { type: 'function' as const, function: { name: 'todo_write' } }],
  ])('answers %s with native tool_calls (structured outputs need no parser)', async (_name, toolChoice) => {
    const completion = await chat.client().chat.completions.create({ model: MODEL, messages: FIRST_TURN, tools: TOOLS, tool_choice: toolChoice }, { headers: NO_PARSER });
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.tool_calls?.[0]).toMatchObject({ type: 'function', function: { name: 'todo_write' } });
  });

  it('refuses an unknown setting', async () => {
    const error = await chat.client().chat.completions
      .create({ model: MODEL, messages: FIRST_TURN, tools: TOOLS }, { headers: { 'x-buildfleet-tool-parser': 'hermes' } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as APIError).message).toContain('x-buildfleet-tool-parser: expected one of on, none');
  });
});

describe('a server with a tool parser (the default)', () => {
  it('takes auto and answers native tool_calls; under none the model does not call', async () => {
    const headers = { 'x-buildfleet-text-calls': 'off' };
    const auto = await chat.client().chat.completions.create({ model: MODEL, messages: FIRST_TURN, tools: TOOLS, tool_choice: 'auto' }, { headers });
    expect(auto.choices[0]?.message.tool_calls?.[0]).toMatchObject({ function: { name: 'todo_write' } });
    const none = await chat.client().chat.completions.create({ model: MODEL, messages: FIRST_TURN, tools: TOOLS, tool_choice: 'none' }, { headers });
    expect(none.choices[0]?.message.tool_calls ?? []).toEqual([]);
    expect(parseTextToolCall({ text: none.choices[0]?.message.content ?? '' })).toBeNull();
  });
});
