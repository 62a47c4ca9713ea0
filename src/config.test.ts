import { describe, expect, it } from 'vitest';
import { apiBaseUrlOf, ConfigError, loadConfig, sitesBaseUrlOf, tenantPolicyDefaults } from './config.js';

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

  it('keeps a finished run’s Redis keys a day after its archive by default, and refuses a retention or sweep interval that is not a sane whole number', () => {
    const defaults = loadConfig({});
    expect(defaults.BUILDFLEET_RUN_RETENTION_SECONDS).toBe(86_400);
    expect(defaults.BUILDFLEET_ARCHIVE_SWEEP_INTERVAL_MS).toBe(60_000);
    expect(loadConfig({ BUILDFLEET_RUN_RETENTION_SECONDS: '1', BUILDFLEET_ARCHIVE_SWEEP_INTERVAL_MS: '0' })).toMatchObject({ BUILDFLEET_RUN_RETENTION_SECONDS: 1, BUILDFLEET_ARCHIVE_SWEEP_INTERVAL_MS: 0 });
    for (const retention of ['0', '-5', '1.5', 'a day', '31536001']) {
      expect(() => loadConfig({ BUILDFLEET_RUN_RETENTION_SECONDS: retention })).toThrow(/BUILDFLEET_RUN_RETENTION_SECONDS/);
    }
    for (const interval of ['-1', '2.5', 'often', '3600001']) {
      expect(() => loadConfig({ BUILDFLEET_ARCHIVE_SWEEP_INTERVAL_MS: interval })).toThrow(/BUILDFLEET_ARCHIVE_SWEEP_INTERVAL_MS/);
    }
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
      // A ceiling by default: no key asks its runs 10,000,000 tokens unless an operator allows it.
      maxRunTokenBudget: 2_000_000,
      dailySpendLimitUsd: 0,
      monthlySpendLimitUsd: 0,
      maxTurns: 40,
      maxConcurrentRuns: 20,
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
    // The run limits join it: BUILDFLEET_MAX_TURNS within a run's ceiling of 200.
    expect(tenantPolicyDefaults(loadConfig({ BUILDFLEET_MAX_TURNS: '12', BUILDFLEET_MAX_CONCURRENT_RUNS: '0' }))).toMatchObject({ maxTurns: 12, maxConcurrentRuns: 0 });
    expect(() => loadConfig({ BUILDFLEET_MAX_TURNS: '201' })).toThrow(/BUILDFLEET_MAX_TURNS: /);
  });

  it('gives sites an origin of their own: never the API’s listener, never its public origin', () => {
    const config = loadConfig({});
    expect([config.BUILDFLEET_SITES_HOST, config.BUILDFLEET_SITES_PORT]).toEqual(['127.0.0.1', 8081]);
    expect(config.BUILDFLEET_SITES_PORT).not.toBe(config.BUILDFLEET_API_PORT);
    expect(() => loadConfig({ BUILDFLEET_API_PORT: '9000', BUILDFLEET_SITES_PORT: '9000' })).toThrow(/BUILDFLEET_SITES_PORT: 9000 is the API's port/);
    // Another host on the same port is another listener (and origin).
    expect(loadConfig({ BUILDFLEET_API_PORT: '9000', BUILDFLEET_SITES_PORT: '9000', BUILDFLEET_SITES_HOST: '127.0.0.2' }).BUILDFLEET_SITES_PORT).toBe(9000);
    expect(() => loadConfig({ BUILDFLEET_PUBLIC_URL: 'https://fleet.example', BUILDFLEET_SITES_PUBLIC_URL: 'https://fleet.example/sites' })).toThrow(/BUILDFLEET_SITES_PUBLIC_URL: /);
    expect(loadConfig({ BUILDFLEET_PUBLIC_URL: 'https://fleet.example', BUILDFLEET_SITES_PUBLIC_URL: 'https://sites.fleet-usercontent.example' }).BUILDFLEET_SITES_PUBLIC_URL).toBe('https://sites.fleet-usercontent.example');
  });

  it('compares the sites origin with the API’s default URL too, when BUILDFLEET_PUBLIC_URL is not set', () => {
    expect(() => loadConfig({ BUILDFLEET_SITES_PUBLIC_URL: 'http://127.0.0.1:8080/' })).toThrow(
      /BUILDFLEET_SITES_PUBLIC_URL: the sites origin http:\/\/127\.0\.0\.1:8080 is the API's \(the API's default URL/,
    );
    // An API listening on every address is reached on loopback here: that is its default URL.
    expect(() => loadConfig({ BUILDFLEET_API_HOST: '0.0.0.0', BUILDFLEET_SITES_PUBLIC_URL: 'http://127.0.0.1:8080' })).toThrow(/is the API's/);
    expect(() => loadConfig({ BUILDFLEET_API_HOST: '::', BUILDFLEET_API_PORT: '9000', BUILDFLEET_SITES_PUBLIC_URL: 'http://[::1]:9000' })).toThrow(/is the API's/);
    expect(sitesBaseUrlOf(loadConfig({ BUILDFLEET_SITES_PUBLIC_URL: 'http://127.0.0.1:9999/' }))).toBe('http://127.0.0.1:9999');
    // Port 0 is picked at listen time: two such listeners never share an origin.
    expect(loadConfig({ BUILDFLEET_API_PORT: '0', BUILDFLEET_SITES_PORT: '0' }).BUILDFLEET_SITES_PORT).toBe(0);
  });

  it('refuses a wildcard sites host without BUILDFLEET_SITES_PUBLIC_URL, and a sites URL that names every address', () => {
    for (const host of ['0.0.0.0', '0', '::', '[::]', '0:0::0']) {
      expect(() => loadConfig({ BUILDFLEET_SITES_HOST: host }), host).toThrow(/BUILDFLEET_SITES_HOST: .* listens on every address.*set BUILDFLEET_SITES_PUBLIC_URL/);
    }
    for (const url of ['http://0.0.0.0:8081', 'http://0:8081', 'http://[::]:8081', 'http://[::ffff:0.0.0.0]:8081']) {
      expect(() => loadConfig({ BUILDFLEET_SITES_PUBLIC_URL: url }), url).toThrow(/BUILDFLEET_SITES_PUBLIC_URL: .* names every address/);
    }
    // Containers listen on every address and name the origin users reach (docker-compose.yml, k8s).
    const container = loadConfig({ BUILDFLEET_SITES_HOST: '0.0.0.0', BUILDFLEET_SITES_PUBLIC_URL: 'https://sites.fleet-usercontent.example' });
    expect(sitesBaseUrlOf(container)).toBe('https://sites.fleet-usercontent.example');
  });

  it('derives base URLs a client can use: IPv6 hosts bracketed, the API’s wildcard host read as loopback', () => {
    expect(sitesBaseUrlOf(loadConfig({ BUILDFLEET_SITES_HOST: '::1' }))).toBe('http://[::1]:8081');
    expect(apiBaseUrlOf(loadConfig({}))).toBe('http://127.0.0.1:8080');
    expect(apiBaseUrlOf(loadConfig({ BUILDFLEET_API_HOST: '0.0.0.0' }))).toBe('http://127.0.0.1:8080');
    expect(apiBaseUrlOf(loadConfig({ BUILDFLEET_API_HOST: '::' }))).toBe('http://[::1]:8080');
    expect(apiBaseUrlOf(loadConfig({ BUILDFLEET_API_HOST: '0.0.0.0', BUILDFLEET_PUBLIC_URL: 'https://fleet.example/' }))).toBe('https://fleet.example');
  });
});
