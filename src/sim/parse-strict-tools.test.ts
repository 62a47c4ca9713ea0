// Strict tool use through the real SDK (docs agents-and-tools/tool-use/strict-tool-use): the
// definition rules, and a strict tool's input matching its schema where a non-strict one breaks.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsonSchemaValidator } from '../parsing/index.js';
import { INVENTED_TOOL_FIELD } from './apply-scenario.js';
import { lookupModel } from './model-catalog.js';
import { parseStrictTools } from './parse-strict-tools.js';
import type { RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient()));
afterAll(() => simulator.close());

const OFF = { 'x-buildfleet-text-calls': 'off' };
const MODEL = 'claude-sonnet-4-6';
const BRIEF = { role: 'user' as const, content: 'Build a site for Luna Bakery.' };
// todo_write as the fleet declares it, closed as strict mode requires.
const TODO_SCHEMA = {
  type: 'object' as const,
  properties: {
    todos: {
      type: 'array',
      items: { type: 'object', properties: { id: { type: 'string' }, title: { type: 'string' } }, required: ['id', 'title'], additionalProperties: false },
    },
  },
  required: ['todos'],
  additionalProperties: false,
};
const todoWrite = (strict?: boolean) => ({ name: 'todo_write', description: 'plan', input_schema: TODO_SCHEMA, ...(strict === undefined ? {} : { strict }) });
const finishTurn = { name: 'finish_turn', description: 'finish', input_schema: { type: 'object' as const, properties: {}, additionalProperties: false } };

function send(tools: unknown[], headers: Record<string, string> = OFF) {
  return client.messages.create({ model: MODEL, max_tokens: 4000, tools, messages: [BRIEF] } as Anthropic.MessageCreateParamsNonStreaming, { headers });
}
async function refusal(tools: unknown[]): Promise<string> {
  const error = await send(tools).catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(Anthropic.BadRequestError);
  return (error as InstanceType<typeof Anthropic.BadRequestError>).message;
}
const validTodoInput = (input: unknown) => createJsonSchemaValidator([{ name: 'todo_write', input_schema: TODO_SCHEMA }])('todo_write', input).ok;
const todoCall = (message: Anthropic.Message) => message.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use' && block.name === 'todo_write');

describe('strict tool definitions', () => {
  it('accepts strict: true on a closed schema and refuses a non-boolean', async () => {
    expect((await send([todoWrite(true), finishTurn])).type).toBe('message');
    expect(await refusal([{ ...todoWrite(), strict: 'yes' }])).toContain('tools.0.custom.strict: Input should be a valid boolean');
  });

  it('refuses an object schema, nested ones included, that does not set additionalProperties: false', async () => {
    const open = { ...todoWrite(true), input_schema: { ...TODO_SCHEMA, additionalProperties: undefined } };
    expect(await refusal([open])).toContain("tools.0.custom.input_schema: For 'object' type, 'additionalProperties' must be explicitly set to false");
    const nested = { ...todoWrite(true), input_schema: { ...TODO_SCHEMA, properties: { todos: { type: 'array', items: { type: 'object', properties: {} } } } } };
    expect(await refusal([nested])).toContain('tools.0.custom.input_schema.properties.todos.items:');
    // A non-strict tool may leave its schema open.
    expect((await send([{ ...todoWrite(false), input_schema: { type: 'object', properties: {} } }])).type).toBe('message');
  });

  it('refuses more than 20 strict tools', async () => {
    const many = Array.from({ length: 21 }, (_, index) => ({ ...finishTurn, name: `tool_${index}`, strict: true }));
    expect(await refusal(many)).toContain('A request can have at most 20 strict tools. Found 21.');
  });

  it('refuses strict on a model without structured outputs', () => {
    // Every served model has them (model-catalog.ts strictTools); the entry is bent to show the rule.
    const model = { ...lookupModel({ model: MODEL })!, strictTools: false };
    expect(() => parseStrictTools({ tools: [todoWrite(true)], model })).toThrow('tools.0.custom.strict: strict tool use is not supported on this model');
  });
});

describe('a strict tool’s input always matches its schema', () => {
  it('invalid_tool_input breaks a non-strict tool’s input and leaves a strict one valid', async () => {
    const scenario = { ...OFF, 'x-buildfleet-scenario': 'invalid_tool_input' };
    const loose = todoCall(await send([todoWrite(), finishTurn], scenario));
    expect(loose?.input).toHaveProperty(INVENTED_TOOL_FIELD);
    expect(validTodoInput(loose?.input)).toBe(false);

    const strict = todoCall(await send([todoWrite(true), finishTurn], scenario));
    expect(validTodoInput(strict?.input)).toBe(true);
    expect(strict?.input).not.toHaveProperty(INVENTED_TOOL_FIELD);

    // A schema that keeps minItems (structured outputs allow 0 and 1) gets as many items, each valid.
    const atLeastOne = { ...TODO_SCHEMA, properties: { todos: { ...TODO_SCHEMA.properties.todos, minItems: 1 } } };
    const strictAtLeastOne = todoCall(await send([{ ...todoWrite(true), input_schema: atLeastOne }, finishTurn], scenario));
    const todos = (strictAtLeastOne?.input as { todos?: Array<{ id?: unknown; title?: unknown }> } | undefined)?.todos ?? [];
    expect(todos.length).toBeGreaterThanOrEqual(1);
    expect(todos.every((todo) => typeof todo.id === 'string' && typeof todo.title === 'string')).toBe(true);
  });

  it('a strict tool’s call is never written as text, whatever the drift setting', async () => {
    const always = { 'x-buildfleet-text-calls': 'always' };
    const loose = await send([todoWrite(), finishTurn], always);
    expect(todoCall(loose)).toBeUndefined();
    const strict = await send([todoWrite(true), finishTurn], always);
    expect(validTodoInput(todoCall(strict)?.input)).toBe(true);
  });
});
