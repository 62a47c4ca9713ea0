import { describe, expect, it } from 'vitest';
import { modelsTheFleetRefuses, resolveRunLimits } from './tenant-run-limits.js';

const open = { maxTurns: 40, allowedModels: null };
const restricted = { maxTurns: 12, allowedModels: ['claude-haiku-4-5', 'claude-sonnet-4-6'] };
const fleetModel = 'claude-sonnet-4-6';

describe('a new run under its tenant’s run limits', () => {
  it('gets the policy’s maxTurns when it names none, and what it asked for up to it', () => {
    expect(resolveRunLimits({ policy: open, requested: {}, fleetModel, isAdmin: false })).toEqual({ kind: 'limits', maxTurns: 40, model: undefined, provider: 'anthropic' });
    expect(resolveRunLimits({ policy: restricted, requested: { maxTurns: 12 }, fleetModel, isAdmin: false })).toMatchObject({ maxTurns: 12 });
    expect(resolveRunLimits({ policy: restricted, requested: { maxTurns: 3 }, fleetModel, isAdmin: false })).toMatchObject({ maxTurns: 3 });
  });

  it('is refused (not clamped) above the policy’s maxTurns, unless the key is an admin’s', () => {
    expect(resolveRunLimits({ policy: restricted, requested: { maxTurns: 13 }, fleetModel, isAdmin: false })).toEqual({
      kind: 'refused',
      refusal: { code: 'max_turns_above_tenant_maximum', requested: 13, maximum: 12 },
    });
    expect(resolveRunLimits({ policy: restricted, requested: { maxTurns: 200 }, fleetModel, isAdmin: true })).toMatchObject({ kind: 'limits', maxTurns: 200 });
  });

  it('may use only the allowed models, admin keys included; naming none picks the fleet’s model when allowed, else the first allowed', () => {
    for (const isAdmin of [false, true]) {
      expect(resolveRunLimits({ policy: restricted, requested: { model: 'claude-opus-4-1' }, fleetModel, isAdmin })).toEqual({
        kind: 'refused',
        refusal: { code: 'model_not_allowed', requested: 'claude-opus-4-1', allowed: restricted.allowedModels },
      });
    }
    expect(resolveRunLimits({ policy: restricted, requested: { model: 'claude-haiku-4-5' }, fleetModel, isAdmin: false })).toMatchObject({ model: 'claude-haiku-4-5' });
    expect(resolveRunLimits({ policy: restricted, requested: {}, fleetModel, isAdmin: false })).toMatchObject({ model: undefined });
    expect(resolveRunLimits({ policy: { ...restricted, allowedModels: ['claude-haiku-4-5'] }, requested: {}, fleetModel, isAdmin: false })).toMatchObject({
      model: 'claude-haiku-4-5',
    });
    // No list: any model (the capability table still decides which the fleet knows).
    expect(resolveRunLimits({ policy: open, requested: { model: 'anything' }, fleetModel, isAdmin: false })).toMatchObject({ model: 'anything' });
  });

  it('may use only the allowed providers, admin keys included; naming none picks the fleet’s provider when allowed, else the first allowed', () => {
    const providers = { ...open, allowedProviders: ['vllm', 'anthropic'] };
    for (const isAdmin of [false, true]) {
      expect(resolveRunLimits({ policy: providers, requested: { provider: 'bedrock' }, fleetModel, fleetProvider: 'anthropic', isAdmin })).toEqual({
        kind: 'refused',
        refusal: { code: 'provider_not_allowed', requested: 'bedrock', allowed: ['vllm', 'anthropic'] },
      });
    }
    expect(resolveRunLimits({ policy: providers, requested: { provider: 'vllm' }, fleetModel, fleetProvider: 'anthropic', isAdmin: false })).toMatchObject({ provider: 'vllm' });
    expect(resolveRunLimits({ policy: providers, requested: {}, fleetModel, fleetProvider: 'anthropic', isAdmin: false })).toMatchObject({ provider: 'anthropic' });
    expect(resolveRunLimits({ policy: providers, requested: {}, fleetModel, fleetProvider: 'vertex', isAdmin: false })).toMatchObject({ provider: 'vllm' });
    // No list: any provider (the fleet's own names are checked by the API: unknown_provider).
    expect(resolveRunLimits({ policy: open, requested: { provider: 'bedrock' }, fleetModel, fleetProvider: 'anthropic', isAdmin: false })).toMatchObject({ provider: 'bedrock' });
  });

  it('refuses the experiment-only options to every key but an admin’s, whatever their value', () => {
    expect(resolveRunLimits({ policy: open, requested: { options: { toolLayout: 'flat', textRecovery: false } }, fleetModel, isAdmin: false })).toEqual({
      kind: 'refused',
      refusal: { code: 'run_option_requires_admin', options: ['toolLayout', 'textRecovery'] },
    });
    expect(resolveRunLimits({ policy: open, requested: { options: { textRecovery: true } }, fleetModel, isAdmin: false })).toMatchObject({
      refusal: { options: ['textRecovery'] },
    });
    expect(resolveRunLimits({ policy: open, requested: { options: { toolLayout: 'flat' } }, fleetModel, isAdmin: true })).toMatchObject({ kind: 'limits' });
  });
});

describe('models the fleet refuses', () => {
  const config = { BUILDFLEET_MODEL_CAPABILITIES: { 'house-model': { maxOutputTokens: 4096 } }, BUILDFLEET_ALLOW_UNKNOWN_MODELS: false };
  it('are those neither the documented table nor the operator’s overrides name, unless unknown models are allowed', () => {
    expect(modelsTheFleetRefuses({ models: ['claude-sonnet-4-6', 'house-model', 'gpt-x'], config })).toEqual(['gpt-x']);
    expect(modelsTheFleetRefuses({ models: ['gpt-x'], config: { ...config, BUILDFLEET_ALLOW_UNKNOWN_MODELS: true } })).toEqual([]);
  });
});
