import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatZodIssues, zodIssueLines } from './format-zod-issues.js';

const schema = z.strictObject({
  prompt: z.string().min(1),
  todos: z.array(z.strictObject({ id: z.string() })).optional(),
});

function issuesOf(value: unknown) {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('expected a failure');
  return parsed.error.issues;
}

describe('formatZodIssues', () => {
  it('names the failing field by its full path', () => {
    expect(formatZodIssues({ issues: issuesOf({ prompt: '' }), root: 'body' })).toMatch(/^body\.prompt: Too small/);
    expect(formatZodIssues({ issues: issuesOf({ prompt: 'x', todos: [{ id: 1 }] }), root: 'body' })).toMatch(/^body\.todos\[0\]\.id: /);
  });

  it('starts at the first key without a root, and names the whole value when there is no path', () => {
    expect(formatZodIssues({ issues: issuesOf({ prompt: 'x', todos: [{ id: 1 }] }) })).toMatch(/^todos\[0\]\.id: /);
    expect(formatZodIssues({ issues: issuesOf('text'), whole: '(input)' })).toMatch(/^\(input\): /);
  });

  it('names each unknown field', () => {
    expect(formatZodIssues({ issues: issuesOf({ prompt: 'x', colour: 1, size: 2 }), root: 'body' })).toBe('body.colour: Unknown field; body.size: Unknown field');
  });

  it('caps a long list of problems', () => {
    const many = z.strictObject({}).safeParse(Object.fromEntries(Array.from({ length: 9 }, (_, index) => [`k${index}`, 1])));
    if (many.success) throw new Error('expected a failure');
    const message = formatZodIssues({ issues: many.error.issues, root: 'query', limit: 5 });
    expect(message.split('; ')).toHaveLength(6);
    expect(message).toContain('(4 more)');
    expect(zodIssueLines({ issues: many.error.issues, root: 'query' })).toHaveLength(9);
  });
});
