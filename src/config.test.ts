import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

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
});
