import { describe, expect, it } from 'vitest';
import { newArmTally } from './experiment-arm-tally.js';
import { parseFormats, providerArms, providerDeclarations, providersExperimentPassed, type ProviderArmResult } from './experiment-providers.js';
import { UsageError } from './usage-error.js';

const result = (name: string, recovery: boolean, format: 'granite' | null, verified: number, ok: boolean | null): ProviderArmResult => {
  const tally = { ...newArmTally(name), runs: 10, verifiedFinishes: verified };
  const arm = { name, provider: format ? `sim-${format}` : 'sim-native', format, recovery };
  return { arm, tally, parseModeCheck: ok === null ? null : { ok, expected: 'granite' } };
};

describe('experiment providers', () => {
  it('has anthropic and native on and off, bedrock and vertex on, each format on and the first format off, the parser leak on', () => {
    const arms = providerArms(['granite', 'deepseek']);
    expect(arms.map((arm) => [arm.provider, arm.format, arm.recovery])).toEqual([
      ['anthropic', null, true],
      ['anthropic', null, false],
      ['bedrock', null, true],
      ['vertex', null, true],
      ['sim-native', null, true],
      ['sim-native', null, false],
      ['sim-granite', 'granite', true],
      ['sim-granite', 'granite', false],
      ['sim-deepseek', 'deepseek', true],
      ['sim-parser-leak', 'tool_call_tag', true],
    ]);
  });

  it('declares each text profile as a server without a tool parser and a provider that knows it, the format pinned', () => {
    const declared = JSON.parse(providerDeclarations({ simulatorUrl: 'http://127.0.0.1:9', fleetModel: 'claude-sonnet-4-6', formats: ['granite'] }));
    expect(declared['sim-native']).toMatchObject({ kind: 'openai_compatible', baseUrl: 'http://127.0.0.1:9/v1', headers: { 'x-buildfleet-text-calls': 'off' } });
    expect(declared['sim-granite']).toEqual({
      kind: 'openai_compatible',
      baseUrl: 'http://127.0.0.1:9/v1',
      modelIds: { 'claude-sonnet-4-6': 'ibm-granite/granite-3.1-8b-instruct' },
      toolParser: false,
      headers: { 'x-buildfleet-tool-parser': 'none', 'x-buildfleet-text-format': 'granite' },
    });
    expect(declared['sim-parser-leak']).toMatchObject({ headers: { 'x-buildfleet-text-calls': 'always', 'x-buildfleet-text-format': 'tool_call_tag' } });
    expect(declared['sim-parser-leak']).not.toHaveProperty('toolParser');
    expect(declared.bedrock).toMatchObject({ kind: 'bedrock', baseUrl: 'http://127.0.0.1:9' });
    expect(declared.vertex).toMatchObject({ kind: 'vertex', baseUrl: 'http://127.0.0.1:9/v1' });
  });

  it('reads --formats as open-model formats only', () => {
    expect(parseFormats('granite, mistral,granite')).toEqual(['granite', 'mistral']);
    expect(() => parseFormats('open_fence')).toThrow(UsageError);
    expect(() => parseFormats(' , ')).toThrow(UsageError);
  });

  it('passes when every recovery-on arm verified 99 % and checked its parse mode; recovery-off arms do not count', () => {
    const passing = [result('native on', true, null, 10, null), result('granite on', true, 'granite', 10, true), result('granite off', false, 'granite', 0, null)];
    expect(providersExperimentPassed(passing)).toBe(true);
    expect(providersExperimentPassed([...passing, result('native on 2', true, null, 9, null)])).toBe(false);
    expect(providersExperimentPassed([result('granite on', true, 'granite', 10, false)])).toBe(false);
  });
});
