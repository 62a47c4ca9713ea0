import { describe, expect, it } from 'vitest';
import { describeEvent } from './follow-run.js';

describe('describeEvent (buildfleet --follow)', () => {
  it('prints a streaming answer’s progress, an overload wait and a failed call', () => {
    expect(describeEvent({ event: 'model-progress', tool: 'write_file', block: 'tool_use', output_tokens: 1200, estimated: true, elapsed_ms: 14_400 })).toBe(
      '  … writing write_file (≈1200 tokens, 14 s)',
    );
    expect(describeEvent({ event: 'model-progress', tool: null, block: 'thinking', output_tokens: 300, estimated: false, elapsed_ms: 2000 })).toBe('  … writing thinking (300 tokens, 2 s)');
    expect(describeEvent({ event: 'model-overload', wait_ms: 4000, overloaded_for_ms: 9000 })).toMatch(/overloaded; the fleet waits 4000 ms/);
    expect(describeEvent({ event: 'model-error', outcome: 'transient', message: 'no event for 90000 ms' })).toMatch(/failed \(transient\)/);
    // Waits the fleet reports on their own lines are not repeated as failures.
    expect(describeEvent({ event: 'model-error', outcome: 'overloaded', message: 'Overloaded' })).toBeNull();
  });
});
