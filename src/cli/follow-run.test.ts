import { describe, expect, it } from 'vitest';
import { describeEvent, describeRunCost, formatUsd } from './follow-run.js';

describe('describeEvent (buildfleet --follow)', () => {
  it('prints a streaming answer’s progress, an overload wait and a failed call', () => {
    expect(describeEvent({ event: 'model-progress', tool: 'write_file', block: 'tool_use', output_tokens: 1200, estimated: true, elapsed_ms: 14_400 })).toBe(
      '  … writing write_file (≈1200 tokens, 14 s)',
    );
    expect(describeEvent({ event: 'model-progress', tool: null, block: 'thinking', output_tokens: 300, estimated: false, elapsed_ms: 2000 })).toBe('  … writing thinking (300 tokens, 2 s)');
    expect(describeEvent({ event: 'model-overload-wait', wait_ms: 4000, overloaded_for_ms: 9000 })).toMatch(/overloaded; the fleet waits 4000 ms/);
    expect(describeEvent({ event: 'tool-call-reject', tool: 'read_session', reason: 'finish_already_verified' })).toBe('    ✗ read_session rejected: finish_already_verified');
    expect(describeEvent({ event: 'summary-fallback-use', reprompts: 2, tools: ['read_session'] })).toMatch(/kept calling tools after the finish gate/);
    expect(describeEvent({ event: 'model-call-fail', outcome: 'transient', message: 'no event for 90000 ms' })).toMatch(/failed \(transient\)/);
    // Waits the fleet reports on their own lines are not repeated as failures.
    expect(describeEvent({ event: 'model-call-fail', outcome: 'overloaded', message: 'Overloaded' })).toBeNull();
  });
});

describe('describeRunCost (the last line of --follow and the demo)', () => {
  it('prints the cost, the cache hit ratio and the tokens by class', () => {
    const usage = { input_tokens: 1200, cache_write_5m_input_tokens: 3000, cache_write_1h_input_tokens: 500, cache_read_input_tokens: 45_300, output_tokens: 9100 };
    expect(describeRunCost({ usage, cacheHitRatio: 45_300 / 50_000, costUsd: 0.162_315 })).toBe(
      'cost $0.1623 · cache hit 90.6% · tokens: 1,200 uncached in, 45,300 cache reads, 3,500 cache writes, 9,100 out',
    );
  });

  it('says n/a before any input was counted, and keeps cents for costs of a dollar or more', () => {
    const usage = { input_tokens: 0, cache_write_5m_input_tokens: 0, cache_write_1h_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 };
    expect(describeRunCost({ usage, cacheHitRatio: null, costUsd: 0 })).toMatch(/^cost \$0\.0000 · cache hit n\/a/);
    expect(formatUsd(12.3456)).toBe('$12.35');
  });
});
