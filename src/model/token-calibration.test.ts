import { describe, expect, it } from 'vitest';
import { TokenCalibration } from './token-calibration.js';

const CHARACTERS = 4000;

describe('TokenCalibration', () => {
  it('counts on the first call of a model, then every N calls, and uses the last ratio in between', async () => {
    const calibration = new TokenCalibration({ everyCalls: 3, intervalMs: 3_600_000, clock: () => 0 });
    let counts = 0;
    const count = async () => {
      counts += 1;
      return 1500 + counts * 100;
    };
    const ask = () => calibration.ratio({ provider: 'anthropic', model: 'claude-sonnet-5-5', characters: CHARACTERS, count, onFailure: () => expect.fail('no failure') });
    expect(await ask()).toBeCloseTo(1.6, 10);
    expect(counts).toBe(1);
    expect(await ask()).toBeCloseTo(1.6, 10);
    expect(await ask()).toBeCloseTo(1.6, 10);
    expect(counts).toBe(1);
    // The third call after the one measured: measured again.
    expect(await ask()).toBeCloseTo(1.7, 10);
    expect(counts).toBe(2);
    // Each (provider, model) keeps its own.
    expect(calibration.measured('anthropic', 'claude-sonnet-4-6')).toBeNull();
    await calibration.ratio({ provider: 'anthropic', model: 'claude-sonnet-4-6', characters: CHARACTERS, count, onFailure: () => undefined });
    expect(counts).toBe(3);
  });

  it('counts again once the last measurement is older than the interval', async () => {
    let now = 0;
    const calibration = new TokenCalibration({ everyCalls: 1000, intervalMs: 60_000, clock: () => now });
    let counts = 0;
    const count = async () => ++counts * 1000;
    const ask = () => calibration.ratio({ provider: 'anthropic', model: 'm', characters: CHARACTERS, count, onFailure: () => undefined });
    await ask();
    now = 59_999;
    await ask();
    expect(counts).toBe(1);
    now = 60_000;
    expect(await ask()).toBe(2);
    expect(counts).toBe(2);
  });

  it('never fails the call: a count that throws or answers nonsense leaves the last ratio and is reported', async () => {
    const calibration = new TokenCalibration({ everyCalls: 2, intervalMs: 3_600_000, clock: () => 0 });
    const failures: unknown[] = [];
    const onFailure = (error: unknown) => failures.push(error);
    const ask = (count: () => Promise<number>) => calibration.ratio({ provider: 'anthropic', model: 'm', characters: CHARACTERS, count, onFailure });
    expect(await ask(() => Promise.reject(new Error('429 rate_limit_error')))).toBeNull();
    // A failed count waits its turn like a good one (every 2 calls).
    expect(await ask(async () => 1200)).toBeNull();
    expect(await ask(async () => 1200)).toBeCloseTo(1.2, 10);
    await ask(async () => 1200);
    // A count of zero tokens is nonsense: it changes nothing.
    expect(await ask(async () => 0)).toBeCloseTo(1.2, 10);
    expect(failures).toHaveLength(2);
    expect(String(failures[0])).toContain('429');
  });

  it('asks once at a time: calls that start while a count is out use the ratio there is', async () => {
    const calibration = new TokenCalibration({ everyCalls: 100, intervalMs: 3_600_000, clock: () => 0 });
    let release: (tokens: number) => void = () => undefined;
    let counts = 0;
    const count = () => {
      counts += 1;
      return new Promise<number>((resolve) => (release = resolve));
    };
    const first = calibration.ratio({ provider: 'p', model: 'm', characters: CHARACTERS, count, onFailure: () => undefined });
    expect(await calibration.ratio({ provider: 'p', model: 'm', characters: CHARACTERS, count, onFailure: () => undefined })).toBeNull();
    release(1300);
    expect(await first).toBeCloseTo(1.3, 10);
    expect(counts).toBe(1);
  });

  it('is off for a provider without count_tokens and when BUILDFLEET_TOKEN_CALIBRATION_CALLS is 0', async () => {
    const on = new TokenCalibration({ everyCalls: 100, intervalMs: 1000 });
    expect(await on.ratio({ provider: 'bedrock', model: 'm', characters: CHARACTERS, count: null, onFailure: () => undefined })).toBeNull();
    const off = new TokenCalibration({ everyCalls: 0, intervalMs: 1000 });
    let counts = 0;
    expect(await off.ratio({ provider: 'anthropic', model: 'm', characters: CHARACTERS, count: async () => ++counts, onFailure: () => undefined })).toBeNull();
    expect(counts).toBe(0);
  });
});
