import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolInputSchemas } from '../domain/tool-input-schemas.js';
import { createZodValidator } from './create-zod-validator.js';

describe('createZodValidator', () => {
  const validate = createZodValidator({
    ...toolInputSchemas,
    with_default: z.strictObject({ count: z.int(), label: z.string().default('none') }),
    loose: z.object({ name: z.string() }),
    coercing: z.strictObject({ count: z.coerce.number() }),
    trimming: z.strictObject({ name: z.string().trim() }),
  });

  it('accepts the builder tools with their exact arguments', () => {
    expect(validate('write_file', { content: '<h1>Hi</h1>', path: 'index.html' })).toEqual({
      ok: true,
      value: { path: 'index.html', content: '<h1>Hi</h1>' },
    });
  });

  it('refuses unknown fields of a strict object', () => {
    expect(validate('write_file', { path: 'a', content: 'b', mode: '644' })).toEqual({
      ok: false,
      reason: 'schema_invalid:/mode:unknown_field',
    });
  });

  it('reports a missing required field', () => {
    expect(validate('write_file', { path: 'a' })).toEqual({ ok: false, reason: 'schema_invalid:/content:missing_required' });
  });

  it('refuses a string for an integer', () => {
    expect(validate('screenshot', { url: 'https://example.com', width: '800' })).toEqual({
      ok: false,
      reason: 'schema_invalid:/width:must be number',
    });
  });

  it('refuses a call zod would complete with a default', () => {
    expect(validate('with_default', { count: 1 })).toEqual({ ok: false, reason: 'schema_invalid:defaults_filled' });
    expect(validate('with_default', { count: 1, label: 'x' }).ok).toBe(true);
  });

  it('refuses a call a non-strict object would silently strip', () => {
    expect(validate('loose', { name: 'a', extra: 1 })).toEqual({ ok: false, reason: 'schema_invalid:/extra:unknown_field' });
  });

  it('refuses values zod would change', () => {
    expect(validate('coercing', { count: '5' })).toEqual({ ok: false, reason: 'schema_invalid:/count:value_transformed' });
    expect(validate('trimming', { name: ' a ' })).toEqual({ ok: false, reason: 'schema_invalid:/name:value_transformed' });
  });

  it('refuses an unknown tool', () => {
    expect(validate('nope', {})).toEqual({ ok: false, reason: 'unknown_tool:nope' });
  });

  it('reports nested paths', () => {
    expect(validate('todo_write', { todos: [{ id: 'Bad Id', title: 'T', phase: 'build' }] })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^schema_invalid:\/todos\/0\/id:/),
    });
  });
});
