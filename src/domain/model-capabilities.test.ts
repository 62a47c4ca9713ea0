import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import {
  DOCUMENTED_MODEL_CAPABILITIES,
  lookupModelCapabilities,
  parseModelCapabilityOverrides,
  UNKNOWN_MODEL_CAPABILITIES,
} from './model-capabilities.js';

describe('the model capability table', () => {
  it('knows the fleet default and documents a consistent entry for every model', () => {
    expect(lookupModelCapabilities({ model: 'claude-sonnet-4-6', overrides: {} })).toMatchObject({
      known: true,
      capabilities: { defaultMaxTokens: 16_384, maxOutputTokens: 128_000, contextWindowTokens: 1_000_000, thinking: true, defaultThinkingBudgetTokens: null, forcedToolChoice: true, tokenizer: 'classic' },
      lifecycle: { status: 'legacy', successor: 'claude-sonnet-5-5' },
    });
    expect(lookupModelCapabilities({ model: 'claude-sonnet-5-5', overrides: {} }).capabilities).toMatchObject({
      thinking: false,
      adaptiveThinking: true,
      thinksByDefault: true,
      thinkingOff: 'between_tools',
      defaultThinkingDisplay: 'omitted',
      progressUpdates: true,
      forcedToolChoice: false,
      midConversationToolChanges: true,
      tokenizer: 'newer',
      minimumCacheableTokens: 512,
    });
    for (const [model, capabilities] of Object.entries(DOCUMENTED_MODEL_CAPABILITIES)) {
      expect(capabilities.defaultMaxTokens, model).toBeLessThanOrEqual(capabilities.maxOutputTokens);
      expect(capabilities.contextWindowTokens, model).toBeGreaterThanOrEqual(200_000);
    }
    // An alias and its snapshot id share one entry.
    expect(DOCUMENTED_MODEL_CAPABILITIES['claude-haiku-4-5']).toBe(DOCUMENTED_MODEL_CAPABILITIES['claude-haiku-4-5-20251001']);
  });

  it('merges overrides over the documented entry, and over conservative defaults for a new model', () => {
    const overrides = parseModelCapabilityOverrides(
      JSON.stringify({ 'claude-sonnet-4-6': { defaultThinkingBudgetTokens: 2048 }, 'my-proxy-model': { maxOutputTokens: 32_000, thinking: true } }),
    );
    expect(lookupModelCapabilities({ model: 'claude-sonnet-4-6', overrides }).capabilities).toMatchObject({ maxOutputTokens: 128_000, defaultThinkingBudgetTokens: 2048 });
    expect(lookupModelCapabilities({ model: 'my-proxy-model', overrides })).toEqual({
      known: true,
      capabilities: { ...UNKNOWN_MODEL_CAPABILITIES, maxOutputTokens: 32_000, thinking: true },
      lifecycle: null,
    });
    expect(lookupModelCapabilities({ model: 'nobody-knows', overrides }).known).toBe(false);
  });

  it('refuses malformed or inconsistent overrides with a message naming the entry', () => {
    expect(() => parseModelCapabilityOverrides('{not json')).toThrow(/not valid JSON/);
    expect(() => parseModelCapabilityOverrides(JSON.stringify({ m: { maxOutputTokens: -1 } }))).toThrow(/m\.maxOutputTokens/);
    expect(() => parseModelCapabilityOverrides(JSON.stringify({ m: { colour: 'red' } }))).toThrow(/colour/);
    expect(() => parseModelCapabilityOverrides(JSON.stringify({ 'claude-opus-4-5': { defaultMaxTokens: 70_000 } }))).toThrow(
      /claude-opus-4-5: defaultMaxTokens 70000 exceeds maxOutputTokens 64000/,
    );
    expect(() => parseModelCapabilityOverrides(JSON.stringify({ 'claude-haiku-4-5': { defaultEffort: 'max' } }))).toThrow(/defaultEffort max is not one of its effortLevels \(none\)/);
    expect(() => parseModelCapabilityOverrides(JSON.stringify({ m: { defaultThinkingBudgetTokens: 2048 } }))).toThrow(/thinking is false/);
    expect(() => parseModelCapabilityOverrides(JSON.stringify({ 'claude-sonnet-4-6': { defaultThinkingBudgetTokens: 512 } }))).toThrow(/1024/);
  });

  it('is part of the boot config: a bad table or an unknown default model stops the process', () => {
    expect(() => loadConfig({ BUILDFLEET_MODEL_CAPABILITIES: '[1]' })).toThrow(ConfigError);
    expect(() => loadConfig({ BUILDFLEET_MODEL_CAPABILITIES: '[1]' })).toThrow(/BUILDFLEET_MODEL_CAPABILITIES/);
    expect(() => loadConfig({ BUILDFLEET_MODEL: 'claude-imaginary-9' })).toThrow(/BUILDFLEET_MODEL: Unknown model "claude-imaginary-9"/);
    expect(loadConfig({ BUILDFLEET_MODEL: 'claude-imaginary-9', BUILDFLEET_ALLOW_UNKNOWN_MODELS: 'true' }).BUILDFLEET_MODEL).toBe('claude-imaginary-9');
    expect(loadConfig({ BUILDFLEET_MODEL: 'claude-imaginary-9', BUILDFLEET_MODEL_CAPABILITIES: '{"claude-imaginary-9":{}}' }).BUILDFLEET_MODEL).toBe('claude-imaginary-9');
    expect(loadConfig({}).BUILDFLEET_MODEL_CAPABILITIES).toEqual({});
  });
});
