import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, tenantPolicyDefaults } from './config.js';

describe('loadConfig', () => {
  it('refuses a renamed variable by name instead of silently using the default of its successor', () => {
    expect(() => loadConfig({ BUILDFLEET_MODEL_TIMEOUT_MS: '120000' })).toThrow(ConfigError);
    expect(() => loadConfig({ BUILDFLEET_MODEL_TIMEOUT_MS: '120000' })).toThrow(/BUILDFLEET_MODEL_TIMEOUT_MS was replaced by BUILDFLEET_MODEL_CONNECT_TIMEOUT_MS/);
  });

  it('names every invalid variable', () => {
    expect(() => loadConfig({ BUILDFLEET_MODEL_IDLE_TIMEOUT_MS: 'soon', BUILDFLEET_OVERLOAD_PATIENCE_MS: '-1' })).toThrow(
      /BUILDFLEET_MODEL_IDLE_TIMEOUT_MS.*BUILDFLEET_OVERLOAD_PATIENCE_MS/,
    );
  });

  it('gives streamed calls an idle timeout and no total one by default', () => {
    const config = loadConfig({});
    expect(config.BUILDFLEET_MODEL_IDLE_TIMEOUT_MS).toBeGreaterThan(15_000);
    expect(config.BUILDFLEET_SHUTDOWN_TIMEOUT_MS).toBeGreaterThan(config.BUILDFLEET_MODEL_IDLE_TIMEOUT_MS);
  });

  it('reads the fleet’s tenant policy, 0 = none, and refuses a default above its maximum when the operator set both, naming both variables', () => {
    expect(tenantPolicyDefaults(loadConfig({}))).toEqual({
      defaultRunBudgetUsd: 0,
      maxRunBudgetUsd: 0,
      defaultRunTokenBudget: 400_000,
      maxRunTokenBudget: 0,
      dailySpendLimitUsd: 0,
      monthlySpendLimitUsd: 0,
    });
    expect(tenantPolicyDefaults(loadConfig({ BUILDFLEET_RUN_BUDGET_USD: '2.5', BUILDFLEET_RUN_BUDGET_USD_MAX: '10', BUILDFLEET_TENANT_DAILY_SPEND_USD: '50' }))).toMatchObject({
      defaultRunBudgetUsd: 2.5,
      maxRunBudgetUsd: 10,
      dailySpendLimitUsd: 50,
    });
    expect(() => loadConfig({ BUILDFLEET_RUN_BUDGET_USD: '20', BUILDFLEET_RUN_BUDGET_USD_MAX: '10' })).toThrow(/BUILDFLEET_RUN_BUDGET_USD: defaultRunBudgetUsd \(20\) is above maxRunBudgetUsd \(10\)/);
    // The built-in default above a maximum the operator set is lowered at use, not refused.
    expect(tenantPolicyDefaults(loadConfig({ BUILDFLEET_TOKEN_BUDGET_MAX: '1000' }))).toMatchObject({ defaultRunTokenBudget: 400_000, maxRunTokenBudget: 1000 });
    expect(() => loadConfig({ BUILDFLEET_TOKEN_BUDGET: '5000', BUILDFLEET_TOKEN_BUDGET_MAX: '1000' })).toThrow(/BUILDFLEET_TOKEN_BUDGET: /);
    expect(() => loadConfig({ BUILDFLEET_TENANT_MONTHLY_SPEND_USD: '-1' })).toThrow(/BUILDFLEET_TENANT_MONTHLY_SPEND_USD/);
  });
});
