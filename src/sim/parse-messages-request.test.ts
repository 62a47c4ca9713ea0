import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient()));
afterAll(() => simulator.close());

const tool = (name: string) => ({ name, description: `the ${name} tool`, input_schema: { type: 'object', properties: {} } });
const base = { model: 'claude-sim', max_tokens: 200, messages: [{ role: 'user', content: 'Build a site for Luna Bakery.' }] };
const toolUse = (id: string, name = 'deploy') => ({ type: 'tool_use', id, name, input: {} });
const toolResult = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' });

function send(body: Record<string, unknown>) {
  return client.messages.create(body as unknown as Anthropic.MessageCreateParamsNonStreaming, { headers: { 'x-buildfleet-text-calls': 'off' } });
}

async function rejection(body: Record<string, unknown>): Promise<InstanceType<typeof Anthropic.BadRequestError>> {
  const error = await send(body).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Anthropic.BadRequestError);
  return error as InstanceType<typeof Anthropic.BadRequestError>;
}

const without = (field: string) => Object.fromEntries(Object.entries(base).filter(([key]) => key !== field));

describe('request validation (400 invalid_request_error, like the real API)', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['model missing', without('model'), 'model: Field required'],
    ['model empty', { ...base, model: '' }, 'model: String should have at least 1 character'],
    ['max_tokens missing', without('max_tokens'), 'max_tokens: Field required'],
    ['max_tokens below 1', { ...base, max_tokens: 0 }, 'max_tokens: Input should be greater than or equal to 1'],
    ['messages empty', { ...base, messages: [] }, 'messages: at least one message is required'],
    ['first message not user', { ...base, messages: [{ role: 'assistant', content: 'Hi' }] }, 'the first message must use the "user" role'],
    [
      'two user messages in a row',
      { ...base, messages: [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }] },
      'roles must alternate between "user" and "assistant", but found multiple "user" roles in a row',
    ],
    [
      'two assistant messages in a row',
      { ...base, messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'assistant', content: 'c' }] },
      'found multiple "assistant" roles in a row',
    ],
    [
      'tool_use without a tool_result in the next message',
      { ...base, tools: [tool('deploy')], messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: [toolUse('toolu_a')] }, { role: 'user', content: 'go on' }] },
      'messages.2: tool_use ids were found without tool_result blocks immediately after: toolu_a',
    ],
    [
      'one of two parallel tool_uses unanswered',
      {
        ...base,
        tools: [tool('deploy')],
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [toolUse('toolu_a'), toolUse('toolu_b')] },
          { role: 'user', content: [toolResult('toolu_a')] },
        ],
      },
      'immediately after: toolu_b',
    ],
    [
      'tool_result for an unknown tool_use id',
      { ...base, messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: [toolUse('toolu_a')] }, { role: 'user', content: [toolResult('toolu_a'), toolResult('toolu_x')] }] },
      'unexpected tool_use_id found in tool_result blocks: toolu_x',
    ],
    [
      'tool_result answering a tool_use two messages back',
      {
        ...base,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [toolUse('toolu_a')] },
          { role: 'user', content: [toolResult('toolu_a')] },
          { role: 'assistant', content: 'ok' },
          { role: 'user', content: [toolResult('toolu_a')] },
        ],
      },
      'messages.4.content.0: unexpected tool_use_id',
    ],
    [
      'tool_result after a text block',
      { ...base, messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: [toolUse('toolu_a')] }, { role: 'user', content: [{ type: 'text', text: 'x' }, toolResult('toolu_a')] }] },
      'tool_result blocks must come first',
    ],
    ['empty text block', { ...base, messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] }, 'messages.0.content.0.text: text content blocks must be non-empty'],
    [
      'empty text inside a tool_result',
      {
        ...base,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [toolUse('toolu_a')] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: [{ type: 'text', text: '' }] }] },
        ],
      },
      'text content blocks must be non-empty',
    ],
    ['empty message content', { ...base, messages: [{ role: 'user', content: '' }] }, 'all messages must have non-empty content'],
    ['duplicate tool names', { ...base, tools: [tool('deploy'), tool('deploy')] }, 'tools: Tool names must be unique'],
    ['tool_choice naming a missing tool', { ...base, tools: [tool('deploy')], tool_choice: { type: 'tool', name: 'publish' } }, "Tool 'publish' not found"],
    ['tool_choice of unknown type', { ...base, tools: [tool('deploy')], tool_choice: { type: 'sometimes' } }, "tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'"],
    ['tool name with spaces', { ...base, tools: [tool('bad name')] }, "tools.0.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"],
    ['tool name longer than 64', { ...base, tools: [tool('x'.repeat(65))] }, 'tools.0.name: String should match pattern'],
    ['stream that is not a boolean', { ...base, stream: 'yes' }, 'stream: Input should be a valid boolean'],
  ];

  it.each(cases)('%s', async (_label, body, message) => {
    const error = await rejection(body);
    expect(error.status).toBe(400);
    expect(error.type).toBe('invalid_request_error');
    const errorBody = error.error as { type: string; error: { type: string; message: string }; request_id: string };
    expect(errorBody.error.message).toContain(message);
    expect(errorBody.type).toBe('error');
    expect(errorBody.error.type).toBe('invalid_request_error');
    expect(errorBody.request_id).toBe(error.requestID);
    expect(error.requestID).toMatch(/^req_[0-9A-Za-z]{24}$/);
  });

  it('accepts a trailing assistant message (continuation after pause_turn)', async () => {
    const response = await send({ ...base, tools: [tool('todo_write')], messages: [...base.messages, { role: 'assistant', content: 'Let me think.' }] });
    expect(response.type).toBe('message');
  });

  it('accepts a well-formed tool_use / tool_result exchange with a note after the results', async () => {
    const response = await send({
      ...base,
      tools: [tool('deploy')],
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: [{ type: 'text', text: 'Deploying.' }, toolUse('toolu_a')] },
        { role: 'user', content: [toolResult('toolu_a'), { type: 'text', text: 'note' }] },
      ],
    });
    expect(response.role).toBe('assistant');
  });
});

describe('assistant prefill (the last message is an assistant message)', () => {
  const prefill = (model: string) => ({ ...base, model, messages: [...base.messages, { role: 'assistant', content: 'Here is the plan:' }] });
  it('is refused on the models that dropped it, with the documented message', async () => {
    for (const model of ['claude-opus-4-6', 'claude-opus-4-8', 'claude-opus-5', 'claude-sonnet-5-5', 'claude-opus-5-5', 'claude-haiku-5-5', 'claude-fable-5-2']) {
      expect((await rejection(prefill(model))).message, model).toContain(
        'This model does not support assistant message prefill. The conversation must end with a user message.',
      );
    }
  });

  it('is still accepted on the models that allow it', async () => {
    for (const model of ['claude-sonnet-4-6', 'claude-sim']) expect((await send(prefill(model))).type, model).toBe('message');
  });
});
