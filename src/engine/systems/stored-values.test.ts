import { describe, expect, it } from 'vitest';
import { agentOf, UNREADABLE_AGENT } from './stored-values.js';

describe('agentOf', () => {
  it("reads an ending script's agent field: an agent name as it is, none as the site builder", () => {
    expect(agentOf('order-desk')).toBe('order-desk');
    expect(agentOf('')).toBe('site-builder');
    expect(agentOf(undefined)).toBe('site-builder');
  });

  it('does not pass on a value that is no agent name (it becomes a metric label)', () => {
    for (const stored of ['Order Desk', 'x', `desk-${'a'.repeat(60)}`, 'desk\n{status="x"}']) expect(agentOf(stored), stored).toBe(UNREADABLE_AGENT);
  });
});
