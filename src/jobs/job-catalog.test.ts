import { describe, expect, it } from 'vitest';
import { jobIds, toolJobSchema, toolUseIdJobPart } from './job-catalog.js';

const RUN = 'run_0123456789abcdef';
const HOSTILE_IDS = ['toolu_1:colon', 'a/b', 'with space', '工具-ツール', '   ', '', 'nul\u0000byte', 'x'.repeat(129), `toolu_${'A'.repeat(9_994)}`, '.', 'sha256.abc'];

describe('job ids of tool calls', () => {
  it('keep an id in the API alphabet as it is, so ids enqueued before stay the same', () => {
    expect(jobIds.tool(RUN, 'toolu_01A09q90qw90lq917835lq9')).toBe(`${RUN}-tool-toolu_01A09q90qw90lq917835lq9`);
    expect(jobIds.tool(RUN, 'synthetic_0f3a')).toBe(`${RUN}-tool-synthetic_0f3a`);
    expect(toolUseIdJobPart('x'.repeat(128))).toBe('x'.repeat(128));
  });

  it('turn any other id into a safe, deterministic, distinct one', () => {
    const parts = HOSTILE_IDS.map(toolUseIdJobPart);
    for (const [index, part] of parts.entries()) {
      // BullMQ refuses ':' in a custom id (Job.addJob), and the id goes into Redis key names.
      expect(part, HOSTILE_IDS[index]).toMatch(/^sha256\.[0-9a-f]{64}$/);
      expect(toolUseIdJobPart(HOSTILE_IDS[index]!)).toBe(part);
    }
    expect(new Set(parts).size).toBe(HOSTILE_IDS.length);
    // A plain id can never look like a hashed one: '.' is outside the plain alphabet.
    expect(toolUseIdJobPart('sha256.abc')).not.toBe('sha256.abc');
  });

  it('make resume ids safe too', () => {
    expect(jobIds.modelResume(RUN, 3, 'a:b')).toMatch(new RegExp(`^${RUN}-turn-3-resume-sha256\\.[0-9a-f]{64}$`));
    expect(jobIds.modelResume(RUN, 3, 'toolu_x')).toBe(`${RUN}-turn-3-resume-toolu_x`);
  });
});

describe('tool job data', () => {
  it('accepts a tool_use id of any shape up to its bound', () => {
    for (const toolUseId of HOSTILE_IDS) {
      expect(toolJobSchema.safeParse({ runId: RUN, turn: 1, toolUseId, name: 'write_file', input: {}, parseMode: 'native' }).success, toolUseId).toBe(true);
    }
    expect(toolJobSchema.safeParse({ runId: RUN, turn: 1, toolUseId: 'x'.repeat(65_537), name: 'write_file', input: {}, parseMode: 'native' }).success).toBe(false);
  });
});
