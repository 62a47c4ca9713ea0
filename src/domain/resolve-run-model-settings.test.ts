import { describe, expect, it } from 'vitest';
import type { ProviderModelDescription } from './provider-model-description.js';
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
    expect(resolveRunModelSettings({ config: config() })).toMatchObject({ model: 'claude-sonnet-4-6', maxTokens: 16_384, maxTokensCeiling: 128_000, thinkingBudgetTokens: null, deprecation: null });
    expect(resolveRunModelSettings({ config: config(), model: 'claude-opus-4-5' })).toMatchObject({ maxTokens: 16_384, maxTokensCeiling: 64_000 });
  });

  it('lets BUILDFLEET_MAX_TOKENS / _CEILING override, never past the model maximum', () => {
    expect(resolveRunModelSettings({ config: config({ BUILDFLEET_MAX_TOKENS: 4096, BUILDFLEET_MAX_TOKENS_CEILING: 8192 }) })).toMatchObject({ maxTokens: 4096, maxTokensCeiling: 8192 });
    expect(resolveRunModelSettings({ config: config({ BUILDFLEET_MAX_TOKENS: 200_000, BUILDFLEET_MAX_TOKENS_CEILING: 200_000 }) })).toMatchObject({ maxTokens: 128_000, maxTokensCeiling: 128_000 });
  });

  it('refuses an unknown model unless the operator allows them (then conservative limits, no thinking)', () => {
    expect(codeOf(() => resolveRunModelSettings({ config: config(), model: 'gpt-9' }))).toBe('unknown_model');
    const allowed = resolveRunModelSettings({ config: config({ BUILDFLEET_ALLOW_UNKNOWN_MODELS: true }), model: 'gpt-9' });
    expect(allowed).toMatchObject({ known: false, maxTokens: 4096, maxTokensCeiling: 8192, thinkingBudgetTokens: null });
    expect(codeOf(() => resolveRunModelSettings({ config: config({ BUILDFLEET_ALLOW_UNKNOWN_MODELS: true }), model: 'gpt-9', thinking: { enabled: true } }))).toBe('thinking_not_supported');
    expect(codeOf(() => resolveRunModelSettings({ config: config({ BUILDFLEET_ALLOW_UNKNOWN_MODELS: true }), model: 'gpt-9', thinking: { budgetTokens: 2048 } }))).toBe('thinking_not_supported');
  });

  it('turns thinking on with a budget and raises max_tokens so the answer keeps its room', () => {
    expect(resolveRunModelSettings({ config: config(), thinking: { budgetTokens: 2048 } })).toMatchObject({ thinkingBudgetTokens: 2048, maxTokens: 2048 + 16_384 });
    // Capped at the model maximum, still above the budget.
    expect(resolveRunModelSettings({ config: config(), thinking: { budgetTokens: 120_000 } })).toMatchObject({ thinkingBudgetTokens: 120_000, maxTokens: 128_000 });
    expect(resolveRunModelSettings({ config: config({ BUILDFLEET_MAX_TOKENS: 1000 }), thinking: { budgetTokens: 1024 } })).toMatchObject({ maxTokens: 2024 });
    // Without a budget, thinking on is adaptive where the model has it, else the fallback budget.
    expect(resolveRunModelSettings({ config: config(), thinking: { enabled: true } })).toMatchObject({ thinking: 'adaptive', thinkingBudgetTokens: null, maxTokens: 16_384 });
    expect(resolveRunModelSettings({ config: config(), model: 'claude-opus-4-5', thinking: { enabled: true } })).toMatchObject({ thinking: 'manual', thinkingBudgetTokens: 4096 });
    expect(resolveRunModelSettings({ config: config(), thinking: {} })).toMatchObject({ thinking: 'off', thinkingBudgetTokens: null });
  });

  it('refuses a budget that cannot stay below max_tokens', () => {
    expect(codeOf(() => resolveRunModelSettings({ config: config(), thinking: { budgetTokens: 128_000 } }))).toBe('thinking_budget_too_large');
    expect(codeOf(() => resolveRunModelSettings({ config: config({ BUILDFLEET_MAX_TOKENS_CEILING: 8000 }), thinking: { budgetTokens: 8000 } }))).toBe('thinking_budget_too_large');
  });

  it('applies a per-model default budget unless the run turns thinking off', () => {
    const withDefault = config({ BUILDFLEET_MODEL_CAPABILITIES: { 'claude-sonnet-4-6': { defaultThinkingBudgetTokens: 3000 } } });
    expect(resolveRunModelSettings({ config: withDefault })).toMatchObject({ thinkingBudgetTokens: 3000, maxTokens: 3000 + 16_384 });
    expect(resolveRunModelSettings({ config: withDefault, thinking: { enabled: false } })).toMatchObject({ thinkingBudgetTokens: null, maxTokens: 16_384 });
    expect(resolveRunModelSettings({ config: withDefault, thinking: { budgetTokens: 5000 } })).toMatchObject({ thinkingBudgetTokens: 5000 });
  });

  it('refuses a retired model naming its date and successor, and runs a deprecated one with a warning naming its date', () => {
    const retired = (() => {
      try {
        resolveRunModelSettings({ config: config(), model: 'claude-opus-4-1' });
        return null;
      } catch (error) {
        return error as RunModelSettingsError;
      }
    })();
    expect(retired?.code).toBe('model_retired');
    expect(retired?.message).toBe('Model "claude-opus-4-1" was retired on 2026-08-05: requests to it fail. Use claude-opus-4-8 instead.');
    expect(codeOf(() => resolveRunModelSettings({ config: config(), model: 'claude-3-5-haiku-latest' }))).toBe('model_retired');
    expect(resolveRunModelSettings({ config: config(), model: 'claude-sonnet-4-5' }).deprecation).toEqual({
      model: 'claude-sonnet-4-5',
      retiresOn: '2026-11-30',
      successor: 'claude-sonnet-5-5',
      message: 'Model "claude-sonnet-4-5" is deprecated and retires on 2026-11-30; move to claude-sonnet-5-5.',
    });
    // An operator whose provider still serves a retired model describes it, and owns that choice.
    const described = config({ BUILDFLEET_MODEL_CAPABILITIES: { 'claude-opus-4-1': {} } });
    expect(resolveRunModelSettings({ config: described, model: 'claude-opus-4-1' }).model).toBe('claude-opus-4-1');
  });

  describe('thinking, effort and display follow the model’s capabilities', () => {
    const settingsOf = (model: string, thinking?: Parameters<typeof resolveRunModelSettings>[0]['thinking'], tenantDefaultEffort: 'low' | 'medium' | 'high' | 'xhigh' | 'max' | null = null) => {
      const { thinking: mode, thinkingBudgetTokens, effort, thinkingDisplay } = resolveRunModelSettings({ config: config(), model, thinking, tenantDefaultEffort });
      return { thinking: mode, thinkingBudgetTokens, effort, thinkingDisplay };
    };

    it('a model that thinks by default runs adaptive, with the updates display where it offers one', () => {
      expect(settingsOf('claude-sonnet-5-5')).toEqual({ thinking: 'adaptive', thinkingBudgetTokens: null, effort: null, thinkingDisplay: 'updates' });
      expect(settingsOf('claude-opus-5-5')).toEqual({ thinking: 'adaptive', thinkingBudgetTokens: null, effort: null, thinkingDisplay: 'updates' });
      // No progress updates: its own default display.
      expect(settingsOf('claude-haiku-5-5')).toEqual({ thinking: 'adaptive', thinkingBudgetTokens: null, effort: null, thinkingDisplay: 'omitted' });
      expect(settingsOf('claude-opus-5')).toMatchObject({ thinking: 'adaptive', thinkingDisplay: 'omitted' });
      // A model that thinks only when asked does not think unless asked.
      expect(settingsOf('claude-sonnet-4-6')).toEqual({ thinking: 'off', thinkingBudgetTokens: null, effort: null, thinkingDisplay: null });
      expect(settingsOf('claude-sonnet-4-6', { enabled: true })).toEqual({ thinking: 'adaptive', thinkingBudgetTokens: null, effort: null, thinkingDisplay: 'summarized' });
    });

    it('turning thinking off takes the model’s own way, or is refused where it always thinks', () => {
      expect(settingsOf('claude-sonnet-5-5', { enabled: false })).toEqual({ thinking: 'between_tools', thinkingBudgetTokens: null, effort: null, thinkingDisplay: null });
      expect(settingsOf('claude-opus-5', { enabled: false })).toMatchObject({ thinking: 'off' });
      expect(settingsOf('claude-haiku-5-5', { enabled: false, effort: 'high' })).toMatchObject({ thinking: 'off', effort: 'high' });
      expect(settingsOf('claude-sonnet-4-6', { enabled: false })).toMatchObject({ thinking: 'off' });
      expect(codeOf(() => settingsOf('claude-opus-5-5', { enabled: false }))).toBe('thinking_always_on');
      expect(codeOf(() => settingsOf('claude-fable-5-2', { enabled: false }))).toBe('thinking_always_on');
      // Off only at effort high or below, whether the effort is the run's or the tenant's.
      expect(codeOf(() => settingsOf('claude-opus-5', { enabled: false, effort: 'xhigh' }))).toBe('effort_requires_thinking');
      expect(codeOf(() => settingsOf('claude-haiku-5-5', { enabled: false, effort: 'max' }))).toBe('effort_requires_thinking');
      expect(codeOf(() => settingsOf('claude-sonnet-5-5', { enabled: false }, 'max'))).toBe('effort_requires_thinking');
      // Opus 4.8 thinks only when asked and refuses xhigh / max without thinking.
      expect(codeOf(() => settingsOf('claude-opus-4-8', { effort: 'xhigh' }))).toBe('effort_requires_thinking');
      expect(settingsOf('claude-opus-4-8', { enabled: true, effort: 'xhigh' })).toMatchObject({ thinking: 'adaptive', effort: 'xhigh' });
      expect(settingsOf('claude-opus-4-8', undefined, 'max')).toMatchObject({ thinking: 'off', effort: null });
    });

    it('a manual budget is refused on an adaptive-only model, telling to set effort', () => {
      const error = (() => {
        try {
          settingsOf('claude-sonnet-5-5', { budgetTokens: 4096 });
          return null;
        } catch (caught) {
          return caught as RunModelSettingsError;
        }
      })();
      expect(error?.code).toBe('thinking_budget_not_supported');
      expect(error?.message).toContain('thinking.effort');
      expect(codeOf(() => settingsOf('claude-opus-4-8', { budgetTokens: 4096 }))).toBe('thinking_budget_not_supported');
      expect(settingsOf('claude-sonnet-4-6', { budgetTokens: 4096, effort: 'low' })).toEqual({ thinking: 'manual', thinkingBudgetTokens: 4096, effort: 'low', thinkingDisplay: 'summarized' });
    });

    it('an effort the model does not take is refused; the tenant’s default applies only where it is taken', () => {
      expect(settingsOf('claude-opus-5-5', { effort: 'max' })).toMatchObject({ thinking: 'adaptive', effort: 'max' });
      expect(codeOf(() => settingsOf('claude-sonnet-4-6', { effort: 'xhigh' }))).toBe('effort_not_supported');
      expect(codeOf(() => settingsOf('claude-haiku-4-5', { effort: 'low' }))).toBe('effort_not_supported');
      expect(settingsOf('claude-sonnet-5-5', undefined, 'xhigh')).toMatchObject({ effort: 'xhigh' });
      // Sonnet 4.6 has no xhigh: the tenant's default is skipped, the model's own applies.
      expect(settingsOf('claude-sonnet-4-6', undefined, 'xhigh')).toMatchObject({ effort: null });
      expect(settingsOf('claude-haiku-4-5', undefined, 'low')).toMatchObject({ effort: null });
      // The run's own effort wins over the tenant's.
      expect(settingsOf('claude-sonnet-5-5', { effort: 'low' }, 'xhigh')).toMatchObject({ effort: 'low' });
    });
  });
});

describe('a run’s model settings with the Models API’s word (describe)', () => {
  const described = (fields: Partial<ProviderModelDescription> & { id: string }): ProviderModelDescription => ({
    lifecycle: 'active',
    retiresOn: null,
    maxInputTokens: 400_000,
    maxTokens: 48_000,
    thinkingTypes: { enabled: true, adaptive: true, betweenTools: false, disabled: true },
    effortLevels: ['low', 'medium', 'high'],
    structuredOutputs: true,
    ...fields,
  });
  const describeOnly = (description: ProviderModelDescription) => (model: string) => (model === description.id ? description : undefined);

  it('accepts a model only the API describes, on its limits and thinking', () => {
    const settings = resolveRunModelSettings({ config: config(), model: 'claude-next', thinking: { budgetTokens: 8192 }, describe: describeOnly(described({ id: 'claude-next' })) });
    expect(settings).toMatchObject({ known: true, maxTokensCeiling: 48_000, thinkingBudgetTokens: 8192, deprecation: null });
    expect(settings.capabilities).toMatchObject({ contextWindowTokens: 400_000, effortLevels: ['low', 'medium', 'high'], defaultEffort: 'high', strictTools: true, adaptiveThinking: true, thinkingOff: 'disabled' });
  });

  it('refuses a model the API reports retired, naming the catalog’s successor where it has one', () => {
    const retiredNext = describeOnly(described({ id: 'claude-next', lifecycle: 'retired', retiresOn: '2026-10-01' }));
    expect(codeOf(() => resolveRunModelSettings({ config: config(), model: 'claude-next', describe: retiredNext }))).toBe('model_retired');
    const retiredSonnet = describeOnly(described({ id: 'claude-sonnet-4-6', lifecycle: 'retired', retiresOn: '2026-12-01' }));
    expect(() => resolveRunModelSettings({ config: config(), model: 'claude-sonnet-4-6', describe: retiredSonnet })).toThrow(/retired on 2026-12-01.*claude-sonnet-5-5/);
  });

  it('warns of a model the API reports deprecated, with its retirement date', () => {
    const deprecated = describeOnly(described({ id: 'claude-opus-4-6', lifecycle: 'deprecated', retiresOn: '2027-02-01' }));
    expect(resolveRunModelSettings({ config: config(), model: 'claude-opus-4-6', describe: deprecated }).deprecation).toMatchObject({
      retiresOn: '2027-02-01',
      successor: 'claude-opus-5-5',
    });
  });

  it('lets the API’s limits stand over the catalog’s, and the operator’s over both', () => {
    const lower = describeOnly(described({ id: 'claude-sonnet-4-6', maxTokens: 64_000 }));
    expect(resolveRunModelSettings({ config: config(), describe: lower })).toMatchObject({ maxTokensCeiling: 64_000 });
    const operator = config({ BUILDFLEET_MODEL_CAPABILITIES: { 'claude-sonnet-4-6': { maxOutputTokens: 32_000 } } });
    expect(resolveRunModelSettings({ config: operator, describe: lower })).toMatchObject({ maxTokensCeiling: 32_000 });
  });
});
