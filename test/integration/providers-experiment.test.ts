// The providers experiment, small: one build per arm for two text formats, through the same code
// path `buildfleet experiment providers` runs (an in-process fleet whose BUILDFLEET_PROVIDERS
// declares each profile at the simulator over loopback, real workers, the suite's Redis). The
// table's figures must agree with what each profile does: native calls only where the model
// calls natively, text calls recovered under their format's parse mode only where recovery is on.
// The text profiles are servers without a tool parser, which refuse tool_choice auto as vLLM does:
// a text arm that verified also shows its provider never sent auto.
import { describe, expect, it } from 'vitest';
import { formatProvidersTable, providersExperimentPassed, runProvidersExperiment, type ProviderArmResult } from '../../src/cli/experiment-providers.js';
import { testRedisUrl, uniquePrefix } from '../support/redis.js';

const FORMATS = ['tool_call_tag', 'mistral_v13'] as const;

describe('experiment providers', () => {
  it('counts each profile and format as the profile behaves', { timeout: 180_000 }, async () => {
    const results = await runProvidersExperiment({ runs: 1, formats: FORMATS, concurrency: 4, seed: 7, timeoutMs: 90_000, redisUrl: testRedisUrl(), prefix: uniquePrefix('providers-experiment') });
    const byName = new Map(results.map((result) => [result.arm.name, result]));
    const arm = (name: string): ProviderArmResult => {
      const result = byName.get(name);
      if (!result) throw new Error(`no arm ${name}; arms: ${[...byName.keys()].join(', ')}`);
      return result;
    };
    expect(results.map((result) => result.arm.name)).toEqual([
      'anthropic (messages, drift by table), recovery on',
      'anthropic (messages, drift by table), recovery off',
      'bedrock (invoke stream, drift by table), recovery on',
      'vertex (raw predict, drift by table), recovery on',
      'openai_compatible native, recovery on',
      'openai_compatible native, recovery off',
      'openai_compatible text tool_call_tag, recovery on',
      'openai_compatible text tool_call_tag, recovery off',
      'openai_compatible text mistral_v13, recovery on',
      'openai_compatible parser leak tool_call_tag, recovery on',
    ]);
    for (const { tally } of results) {
      expect(tally.runs, tally.arm).toBe(1);
      expect(tally.turnsExpectingTool, tally.arm).toBeGreaterThan(0);
    }

    // Native tool_calls: every unforced turn a native call, nothing written as text.
    for (const name of ['openai_compatible native, recovery on', 'openai_compatible native, recovery off']) {
      const { tally, parseModeCheck } = arm(name);
      expect(tally.toolUseTurns, name).toBe(tally.turnsExpectingTool);
      expect(tally.jsonInTextTurns, name).toBe(0);
      expect(tally.recoveredTurns, name).toBe(0);
      expect(tally.verifiedFinishes, name).toBe(1);
      expect(parseModeCheck, name).toBeNull();
    }

    // No tool parser: no native call on a turn the model chose (the forced plan turn is not
    // counted), its calls recovered under the format's own parse mode, and the build verified.
    for (const [name, mode] of [
      ['openai_compatible text tool_call_tag, recovery on', 'tool_call_tag'],
      ['openai_compatible text mistral_v13, recovery on', 'mistral'],
      // A parser that misses the calls: the same text, with tool_choice auto sent.
      ['openai_compatible parser leak tool_call_tag, recovery on', 'tool_call_tag'],
    ] as const) {
      const { tally, parseModeCheck } = arm(name);
      const format = name;
      expect(tally.toolUseTurns, format).toBe(0);
      expect(tally.recoveredTurns, format).toBeGreaterThan(3);
      expect(tally.jsonInTextTurns, format).toBeGreaterThanOrEqual(tally.recoveredTurns);
      expect(Object.keys(tally.recoveredParseModes), format).toEqual([mode]);
      expect(parseModeCheck, format).toEqual({ ok: true, expected: mode });
      expect(tally.verifiedFinishes, format).toBe(1);
    }

    // The same text with recovery off: seen, never run, so the build cannot verify.
    const off = arm('openai_compatible text tool_call_tag, recovery off').tally;
    expect(off.toolUseTurns).toBe(0);
    expect(off.jsonInTextTurns).toBeGreaterThan(0);
    expect(off.recoveredTurns).toBe(0);
    expect(off.verifiedFinishes).toBe(0);
    expect(off.otherEnds).toEqual({ unverified_finish: 1 });

    // The Claude arms verify with recovery on (drift by the table is rare on tiered lists), through
    // the Messages API, Bedrock and Vertex alike, their calls native.
    for (const name of ['anthropic (messages, drift by table), recovery on', 'bedrock (invoke stream, drift by table), recovery on', 'vertex (raw predict, drift by table), recovery on']) {
      const { tally } = arm(name);
      expect(tally.verifiedFinishes, name).toBe(1);
      expect(tally.toolUseTurns, name).toBeGreaterThan(0);
    }

    // The exit rule: every recovery-on arm verified and checked; a recovery-off arm's failure does not count.
    expect(providersExperimentPassed(results)).toBe(true);
    const table = formatProvidersTable(results);
    expect(table).toContain('ok (tool_call_tag)');
    expect(table).toContain('ok (mistral)');
    expect(table).toContain('unverified_finish×1');
  });
});
