import { describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../domain/profile.js';
import { anthropicToolsFor } from './tool-definitions.js';
import { MAXIMUM_STRICT_TOOLS, strictInputSchema } from './strict-input-schema.js';

/** Every object schema in `schema`, nested ones included. */
function objectsOf(schema: unknown): Array<Record<string, unknown>> {
  if (typeof schema !== 'object' || schema === null) return [];
  const record = schema as Record<string, unknown>;
  return [...(record.type === 'object' ? [record] : []), ...Object.values(record).flatMap(objectsOf)];
}

const UNSUPPORTED = ['minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'maxItems'];

describe('strictInputSchema', () => {
  it('closes every object and moves the keywords strict tool use does not take into the description', () => {
    const schema = strictInputSchema({
      type: 'object',
      properties: { todos: { type: 'array', minItems: 1, maxItems: 20, items: { type: 'object', properties: { id: { type: 'string', maxLength: 64, pattern: '^[a-z]+$' } } } } },
    });
    const todos = (schema.properties as Record<string, Record<string, unknown>>).todos!;
    expect(todos.minItems).toBe(1);
    expect(todos).not.toHaveProperty('maxItems');
    expect(todos.description).toBe('(maxItems 20)');
    const id = ((todos.items as Record<string, unknown>).properties as Record<string, Record<string, unknown>>).id!;
    expect(id).toEqual({ type: 'string', description: '(maxLength 64, pattern ^[a-z]+$)' });
    for (const object of objectsOf(schema)) expect(object.additionalProperties).toBe(false);
  });

  it('gives every tool of the agent a strict schema, within the 20 strict tools a request may carry', () => {
    expect(ALL_TOOLS.length).toBeLessThanOrEqual(MAXIMUM_STRICT_TOOLS);
    for (const tool of anthropicToolsFor(ALL_TOOLS, { strict: true })) {
      expect(tool.strict).toBe(true);
      for (const object of objectsOf(tool.input_schema)) expect(object.additionalProperties, tool.name).toBe(false);
      const text = JSON.stringify(tool.input_schema);
      for (const keyword of UNSUPPORTED) expect(text.includes(`"${keyword}"`), `${tool.name} ${keyword}`).toBe(false);
    }
    expect(anthropicToolsFor(['write_file'])[0]).not.toHaveProperty('strict');
  });
});
