import { describe, expect, it } from 'vitest';
import { buildToolResultsMessage, MISSING_RESULT_CONTENT } from './turn-input.js';
import { TOOL_JOB_ATTEMPTS } from '../jobs/fleet-queues.js';

describe('buildToolResultsMessage', () => {
  it('answers a call without a ledger entry as failed after its attempts, inside the untrusted envelope', () => {
    const stored = { content: '<tool_output tool="deploy" trust="untrusted">\n{"ok":true}\n</tool_output>', is_error: false };
    const { message, missing } = buildToolResultsMessage(new Map([['toolu_a', stored], ['toolu_b', null]]), ['toolu_a', 'toolu_b'], null);
    expect(missing).toEqual(['toolu_b']);
    expect(message.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_a', content: stored.content },
      { type: 'tool_result', tool_use_id: 'toolu_b', content: MISSING_RESULT_CONTENT, is_error: true },
    ]);
    expect(MISSING_RESULT_CONTENT).toMatch(/^<tool_output trust="untrusted">\nError \(job_attempts_exhausted\): The tool gave no result: its job failed after (\d+) attempts .*\n<\/tool_output>$/);
    expect(MISSING_RESULT_CONTENT).toContain(`after ${TOOL_JOB_ATTEMPTS} attempts`);
  });
});
