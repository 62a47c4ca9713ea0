import { describe, expect, it } from 'vitest';
import { formatServerSentComment, formatServerSentEvent } from './server-sent-event.js';

describe('server-sent event frames', () => {
  it('writes id, event and data lines and a blank line', () => {
    expect(formatServerSentEvent({ id: '1-0', data: '{"a":1}' })).toBe('id: 1-0\ndata: {"a":1}\n\n');
    expect(formatServerSentEvent({ event: 'end', data: '{}' })).toBe('event: end\ndata: {}\n\n');
  });

  it('splits multi-line data and strips newlines from fields', () => {
    expect(formatServerSentEvent({ id: '1\n2', event: 'a\rb', data: 'x\ny\r\nz' })).toBe('id: 12\nevent: ab\ndata: x\ndata: y\ndata: z\n\n');
    expect(formatServerSentComment('beat\nbeat')).toBe(': beat beat\n\n');
  });
});
