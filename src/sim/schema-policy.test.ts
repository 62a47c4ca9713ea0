// The schema policy's pieces: the bounds a strict schema's descriptions state are read back, valid
// inputs honour them, an invalid input is wrong in exactly one way, and through the real SDK the
// policy calls each offered tool once — the final-sounding ones last — then answers in text.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsonSchemaValidator } from '../parsing/index.js';
import { invalidInput, validInput, withDescribedBounds } from './schema-policy.js';
import type { RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

const TODO_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string', description: '(minLength 1, maxLength 8, pattern ^[a-z][a-z0-9, ]*$)' },
    count: { type: 'integer', description: 'How many (minimum 2, maximum 4)' },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, description: 'Tags (maxItems 2, uniqueItems true)' },
  },
  required: ['id', 'count'],
  additionalProperties: false,
};

const isValid = (schema: object, value: unknown) => createJsonSchemaValidator([{ name: 't', input_schema: schema }])('t', value).ok;

describe('the schema policy', () => {
  it('reads the bounds a description states back into the schema, a pattern with commas included', () => {
    expect(withDescribedBounds(TODO_SCHEMA)).toMatchObject({
      properties: {
        id: { minLength: 1, maxLength: 8, pattern: '^[a-z][a-z0-9, ]*$' },
        count: { minimum: 2, maximum: 4 },
        tags: { maxItems: 2, uniqueItems: true },
      },
    });
    // A pattern's own parentheses, nested or escaped, do not end the list.
    expect(withDescribedBounds({ type: 'string', description: 'Code (see docs) (minLength 2, pattern ^a(b(c))\\($, maxLength 9)' })).toMatchObject({
      minLength: 2,
      pattern: '^a(b(c))\\($',
      maxLength: 9,
    });
    // Prose in parentheses is no list of bounds.
    expect(withDescribedBounds({ type: 'string', description: 'A name (first and last)' })).toEqual({ type: 'string', description: 'A name (first and last)' });
  });

  it('draws inputs that meet those bounds, the same for the same seed', () => {
    // The bounds written out by hand, not read back by the code under test.
    const bounded = {
      type: 'object',
      properties: {
        id: { type: 'string', minLength: 1, maxLength: 8, pattern: '^[a-z][a-z0-9, ]*$' },
        count: { type: 'integer', minimum: 2, maximum: 4 },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, maxItems: 2, uniqueItems: true },
      },
      required: ['id', 'count'],
      additionalProperties: false,
    };
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) expect(isValid(bounded, validInput(TODO_SCHEMA, seed))).toBe(true);
    expect(validInput(TODO_SCHEMA, 9)).toEqual(validInput(TODO_SCHEMA, 9));
  });

  it('makes an input invalid in one way: a required field missing, else an unknown one, else a wrong type', () => {
    const valid = validInput(TODO_SCHEMA, 1);
    const invalid = invalidInput(TODO_SCHEMA, valid);
    expect(isValid(TODO_SCHEMA, invalid)).toBe(false);
    expect(Object.keys(invalid!)).toEqual(Object.keys(valid).filter((key) => key !== 'id'));
    expect(invalidInput({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }, { a: 'x' })).toEqual({ a: 'x', unexpected_field: true });
    // Open schemas: a wrong type where one is asked for — but an array, or anything, is no wrong
    // type for a property that takes it.
    for (const open of [
      { type: 'object', properties: { a: { type: 'string' } } },
      { type: 'object', properties: { a: { type: 'array' }, b: { type: 'integer' } } },
      { type: 'object', properties: { a: {}, b: { anyOf: [{ type: 'array' }, { type: 'string' }] }, c: { type: 'boolean' } } },
    ]) {
      const wrong = invalidInput(open, { a: 'x' });
      expect(wrong).not.toBeNull();
      expect(isValid(open, wrong)).toBe(false);
    }
    // A schema that constrains nothing has no invalid input.
    expect(invalidInput({ type: 'object' }, {})).toBeNull();
    expect(invalidInput({ type: 'object', properties: { a: {} } }, { a: 1 })).toBeNull();
  });
});

describe('the schema policy through the real SDK', () => {
  let simulator: RunningSimulator;
  let client: Anthropic;
  beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient({ policy: 'schema', seed: 5 })));
  afterAll(() => simulator.close());

  const tool = (name: string): Anthropic.Tool => ({ name, description: name, input_schema: TODO_SCHEMA as Anthropic.Tool.InputSchema });
  const TOOLS = [tool('finish_build'), tool('note'), tool('check')];

  it('calls each offered tool once, the final-sounding one last, then answers in text', async () => {
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'go' }];
    const called: string[] = [];
    for (let turn = 0; turn < 5; turn += 1) {
      const answer = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 1024, tools: TOOLS, messages }, { headers: { 'x-buildfleet-text-calls': 'off' } });
      messages.push({ role: 'assistant', content: answer.content });
      if (answer.stop_reason !== 'tool_use') {
        expect(answer.content.at(-1)).toMatchObject({ type: 'text' });
        break;
      }
      const calls = answer.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
      expect(calls).toHaveLength(1);
      expect(isValid(withDescribedBounds(TODO_SCHEMA) as object, calls[0]!.input)).toBe(true);
      called.push(calls[0]!.name);
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: calls[0]!.id, content: '{"ok": true}' }] });
    }
    expect(called).toEqual(['note', 'check', 'finish_build']);
  });

  it('calls the tool a forced tool_choice names, whatever it called before', async () => {
    const answer = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 1024, tools: TOOLS, tool_choice: { type: 'tool', name: 'finish_build' }, messages: [{ role: 'user', content: 'go' }] });
    expect(answer.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'finish_build' })]);
  });
});
