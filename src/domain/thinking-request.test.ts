import { describe, expect, it } from 'vitest';
import { lookupModelCapabilities } from './model-capabilities.js';
import { resolveRunModelSettings, type ThinkingRequest } from './resolve-run-model-settings.js';
import { buildThinkingRequest, THINKING_DISPLAY_UPDATES_BETA } from './thinking-request.js';

/** The request parts of a run submitted with `thinking` on `model`, as the turn builds them. */
function requestOf(model: string, thinking?: ThinkingRequest) {
  const settings = resolveRunModelSettings({ config: { BUILDFLEET_MODEL: model, BUILDFLEET_MODEL_CAPABILITIES: {}, BUILDFLEET_ALLOW_UNKNOWN_MODELS: false }, thinking });
  return buildThinkingRequest({ settings, capabilities: lookupModelCapabilities({ model, overrides: {} }).capabilities });
}

describe('the thinking part of a request', () => {
  it('asks the 5.5 models for adaptive thinking with the updates display and its beta', () => {
    expect(requestOf('claude-sonnet-5-5')).toEqual({ thinking: { type: 'adaptive', display: 'updates' }, outputConfig: null, betas: [THINKING_DISPLAY_UPDATES_BETA] });
    expect(requestOf('claude-opus-5-5', { effort: 'high' })).toEqual({ thinking: { type: 'adaptive', display: 'updates' }, outputConfig: { effort: 'high' }, betas: [THINKING_DISPLAY_UPDATES_BETA] });
  });

  it('sends between_tools alone, disabled where the model thinks by default, nothing where it does not', () => {
    expect(requestOf('claude-sonnet-5-5', { enabled: false, effort: 'low' })).toEqual({ thinking: { type: 'between_tools' }, outputConfig: { effort: 'low' }, betas: [] });
    expect(requestOf('claude-haiku-5-5', { enabled: false })).toEqual({ thinking: { type: 'disabled' }, outputConfig: null, betas: [] });
    expect(requestOf('claude-opus-5', { enabled: false })).toEqual({ thinking: { type: 'disabled' }, outputConfig: null, betas: [] });
    expect(requestOf('claude-sonnet-4-6')).toEqual({ thinking: null, outputConfig: null, betas: [] });
    expect(requestOf('claude-sonnet-4-6', { enabled: false, effort: 'medium' })).toEqual({ thinking: null, outputConfig: { effort: 'medium' }, betas: [] });
  });

  it('keeps the model’s default display without a field, and the manual budget as budget_tokens', () => {
    expect(requestOf('claude-haiku-5-5')).toEqual({ thinking: { type: 'adaptive' }, outputConfig: null, betas: [] });
    expect(requestOf('claude-sonnet-4-6', { enabled: true })).toEqual({ thinking: { type: 'adaptive' }, outputConfig: null, betas: [] });
    expect(requestOf('claude-sonnet-4-6', { budgetTokens: 2048 })).toEqual({ thinking: { type: 'enabled', budget_tokens: 2048 }, outputConfig: null, betas: [] });
  });
});
