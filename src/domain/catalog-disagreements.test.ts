import { describe, expect, it } from 'vitest';
import { catalogDisagreements } from './catalog-disagreements.js';
import { lookupModelCapabilities } from './model-capabilities.js';
import type { ProviderModelDescription } from './provider-model-description.js';

/** Sonnet 5.5 as the Models API would describe it from the catalog's own facts. */
const SONNET_5_5: ProviderModelDescription = {
  id: 'claude-sonnet-5-5',
  lifecycle: 'active',
  retiresOn: null,
  maxInputTokens: 1_000_000,
  maxTokens: 128_000,
  thinkingTypes: { enabled: false, adaptive: true, betweenTools: true, disabled: false },
  effortLevels: ['low', 'medium', 'high', 'xhigh', 'max'],
  structuredOutputs: true,
};

function disagreementsOf(description: ProviderModelDescription, overrides = {}) {
  const { capabilities, lifecycle } = lookupModelCapabilities({ model: description.id, overrides });
  return catalogDisagreements({ description, capabilities, lifecycle });
}

describe('catalog disagreements', () => {
  it('finds none where the API says what the catalog says; legacy is active in the API', () => {
    expect(disagreementsOf(SONNET_5_5)).toEqual([]);
    expect(disagreementsOf({ ...SONNET_5_5, id: 'claude-sonnet-5', thinkingTypes: { enabled: false, adaptive: true, betweenTools: false, disabled: true } })).toEqual([]);
  });

  it('names each field in the API’s words, with both values', () => {
    const changed: ProviderModelDescription = {
      ...SONNET_5_5,
      lifecycle: 'deprecated',
      retiresOn: '2027-03-01',
      maxTokens: 64_000,
      thinkingTypes: { enabled: true, adaptive: true, betweenTools: false, disabled: true },
      effortLevels: [],
    };
    expect(disagreementsOf(changed)).toEqual([
      { model: 'claude-sonnet-5-5', field: 'max_tokens', catalog: '128000', api: '64000' },
      { model: 'claude-sonnet-5-5', field: 'thinking.enabled', catalog: 'false', api: 'true' },
      { model: 'claude-sonnet-5-5', field: 'thinking.between_tools', catalog: 'true', api: 'false' },
      { model: 'claude-sonnet-5-5', field: 'thinking.disabled', catalog: 'false', api: 'true' },
      { model: 'claude-sonnet-5-5', field: 'effort', catalog: 'low,medium,high,xhigh,max', api: 'none' },
      { model: 'claude-sonnet-5-5', field: 'lifecycle', catalog: 'active', api: 'deprecated' },
      { model: 'claude-sonnet-5-5', field: 'retires_at', catalog: 'none', api: '2027-03-01' },
    ]);
  });

  it('compares nothing the API left out, and the operator’s overrides rather than the bare catalog', () => {
    expect(disagreementsOf({ ...SONNET_5_5, maxTokens: null, thinkingTypes: null, effortLevels: null, structuredOutputs: null, maxInputTokens: 5 }, {})).toEqual([
      { model: 'claude-sonnet-5-5', field: 'max_input_tokens', catalog: '1000000', api: '5' },
    ]);
    expect(disagreementsOf(SONNET_5_5, { 'claude-sonnet-5-5': { strictTools: false } })).toEqual([{ model: 'claude-sonnet-5-5', field: 'structured_outputs', catalog: 'false', api: 'true' }]);
  });
});
