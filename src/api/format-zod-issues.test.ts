import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatZodIssues } from './format-zod-issues.js';

const schema = z.strictObject({
  prompt: z.string().min(1),
  todos: z.array(z.strictObject({ id: z.string() })).optional(),
});

function messageFor(value: unknown): string {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('expected a failure');
  return formatZodIssues('body', parsed.error.issues);
}

describe('formatZodIssues', () => {
  it('names the failing field by its full path', () => {
    expect(messageFor({ prompt: '' })).toMatch(/^body\.prompt: Too small/);
    expect(messageFor({ prompt: 'x', todos: [{ id: 1 }] })).toMatch(/^body\.todos\[0\]\.id: /);
  });

  it('names each unknown field', () => {
    expect(messageFor({ prompt: 'x', colour: 1, size: 2 })).toBe('body.colour: Unknown field; body.size: Unknown field');
  });

  it('caps a long list of problems', () => {
    const many = z.strictObject({}).safeParse(Object.fromEntries(Array.from({ length: 9 }, (_, index) => [`k${index}`, 1])));
    if (many.success) throw new Error('expected a failure');
    const message = formatZodIssues('query', many.error.issues);
    expect(message.split('; ')).toHaveLength(6);
    expect(message).toContain('(4 more)');
  });
});
