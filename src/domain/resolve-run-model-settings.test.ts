import { describe, expect, it } from 'vitest';
import { resolveRunModelSettings, RunModelSettingsError, type ModelSettingsConfig } from './resolve-run-model-settings.js';

const config = (overrides: Partial<ModelSettingsConfig> = {}): ModelSettingsConfig => ({
  BUILDFLEET_MODEL: 'claude-sonnet-4-6',
  BUILDFLEET_MODEL_CAPABILITIES: {},
  BUILDFLEET_ALLOW_UNKNOWN_MODELS: false,
  ...overrides,
});

function codeOf(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (error) {
    return error instanceof RunModelSettingsError ? error.code : 'not a RunModelSettingsError';
  }
}

describe('a run’s model settings', () => {
  it('takes max_tokens and its ceiling from the model', () => {
    expect(resolveRunModelSettings({ config: config() })).toMatchObject({ model: 'claude-sonnet-4-6', maxTokens: 16_384, maxTokensCeiling: 64_000, thinkingBudgetTokens: null });
    expect(resolveRunModelSettings({ config: config(), model: 'claude-opus-4-1' })).toMatchObject({ maxTokens: 16_384, maxTokensCeiling: 32_000 });
  });

  it('lets BUILDFLEET_MAX_TOKENS / _CEILING override, never past the model maximum', () => {
    expect(resolveRunModelSettings({ config: config({ BUILDFLEET_MAX_TOKENS: 4096, BUILDFLEET_MAX_TOKENS_CEILING: 8192 }) })).toMatchObject({ maxTokens: 4096, maxTokensCeiling: 8192 });
    expect(resolveRunModelSettings({ config: config({ BUILDFLEET_MAX_TOKENS: 100_000, BUILDFLEET_MAX_TOKENS_CEILING: 200_000 }) })).toMatchObject({ maxTokens: 64_000, maxTokensCeiling: 64_000 });
  });

  it('refuses an unknown model unless the operator allows them (then conservative limits, no thinking)', () => {
    expect(codeOf(() => resolveRunModelSettings({ config: config(), model: 'gpt-9' }))).toBe('unknown_model');
    const allowed = resolveRunModelSettings({ config: config({ BUILDFLEET_ALLOW_UNKNOWN_MODELS: true }), model: 'gpt-9' });
    expect(allowed).toMatchObject({ known: false, maxTokens: 4096, maxTokensCeiling: 8192, thinkingBudgetTokens: null });
    expect(codeOf(() => resolveRunModelSettings({ config: config({ BUILDFLEET_ALLOW_UNKNOWN_MODELS: true }), model: 'gpt-9', thinking: {} }))).toBe('thinking_not_supported');
  });

  it('turns thinking on with a budget and raises max_tokens so the answer keeps its room', () => {
    expect(resolveRunModelSettings({ config: config(), thinking: { budgetTokens: 2048 } })).toMatchObject({ thinkingBudgetTokens: 2048, maxTokens: 2048 + 16_384 });
    // Capped at the model maximum, still above the budget.
    expect(resolveRunModelSettings({ config: config(), thinking: { budgetTokens: 60_000 } })).toMatchObject({ thinkingBudgetTokens: 60_000, maxTokens: 64_000 });
    expect(resolveRunModelSettings({ config: config({ BUILDFLEET_MAX_TOKENS: 1000 }), thinking: { budgetTokens: 1024 } })).toMatchObject({ maxTokens: 2024 });
    expect(resolveRunModelSettings({ config: config(), thinking: {} })).toMatchObject({ thinkingBudgetTokens: 4096 });
  });

  it('refuses a budget that cannot stay below max_tokens', () => {
    expect(codeOf(() => resolveRunModelSettings({ config: config(), thinking: { budgetTokens: 64_000 } }))).toBe('thinking_budget_too_large');
    expect(codeOf(() => resolveRunModelSettings({ config: config({ BUILDFLEET_MAX_TOKENS_CEILING: 8000 }), thinking: { budgetTokens: 8000 } }))).toBe('thinking_budget_too_large');
  });

  it('applies a per-model default budget unless the run turns thinking off', () => {
    const withDefault = config({ BUILDFLEET_MODEL_CAPABILITIES: { 'claude-sonnet-4-6': { defaultThinkingBudgetTokens: 3000 } } });
    expect(resolveRunModelSettings({ config: withDefault })).toMatchObject({ thinkingBudgetTokens: 3000, maxTokens: 3000 + 16_384 });
    expect(resolveRunModelSettings({ config: withDefault, thinking: { enabled: false } })).toMatchObject({ thinkingBudgetTokens: null, maxTokens: 16_384 });
    expect(resolveRunModelSettings({ config: withDefault, thinking: { budgetTokens: 5000 } })).toMatchObject({ thinkingBudgetTokens: 5000 });
  });
});
