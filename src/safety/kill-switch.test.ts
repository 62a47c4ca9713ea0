import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisClient } from '../redis/redis-connection.js';
import { connectTestRedis, deletePrefix, uniquePrefix } from '../../test/support/redis.js';
import { createKeySpace, type KeySpace, RunEngine } from '../engine/index.js';
import { KillSwitch, type KillSwitchSettings } from './kill-switch.js';
import { killSwitchGaugeValue, type KillSwitchMode } from './kill-switch-mode.js';

// The fleet scope alone, as before the switch had scopes: one tenant, fleetMinTenants 1 (any spike
// trips the fleet). The scoped behaviour is kill-switch-scopes.test.ts's subject.
const subject = { runId: 'run_seed', tenant: 'default' };
const image = { ...subject, upstream: { tool: 'fetch_image', host: 'cdn.example' } };
const page = { ...subject, upstream: { tool: 'fetch_url_live', host: 'cdn.example' } };

let redis: RedisClient;
const prefixes: string[] = [];

beforeAll(() => {
  redis = connectTestRedis();
});
afterAll(async () => {
  for (const prefix of prefixes) await deletePrefix(redis, prefix);
  await redis.quit();
});

function newSwitch(settings: Partial<KillSwitchSettings> = {}, seen: KillSwitchMode[] = []): { killSwitch: KillSwitch; keys: KeySpace } {
  const prefix = uniquePrefix('killswitch');
  prefixes.push(prefix);
  const keys = createKeySpace(prefix);
  const killSwitch = new KillSwitch({
    redis,
    keys,
    runUpstreams: new RunEngine(redis, keys),
    settings: { threshold: 0.25, minVolume: 20, windowMs: 60_000, cooldownMs: 0, fleetMinTenants: 1, upstreamMinTenants: 2, ...settings },
    hooks: { onKillSwitchState: (mode) => seen.push(mode) },
  });
  return { killSwitch, keys };
}

async function record(killSwitch: KillSwitch, valid: number, invalid: number) {
  const outcomes = [];
  for (let index = 0; index < valid; index += 1) outcomes.push(await killSwitch.recordOutcome({ tool: 'fetch_url_live', valid: true, ...page }));
  for (let index = 0; index < invalid; index += 1) {
    outcomes.push(await killSwitch.recordOutcome({ tool: 'fetch_image', valid: false, reason: 'unexpected_content_type:text/html', ...image }));
  }
  return outcomes;
}

describe('KillSwitch', () => {
  it('does not trip below the minimum volume, whatever the rate', async () => {
    const { killSwitch } = newSwitch();
    const outcomes = await record(killSwitch, 0, 19);
    expect(outcomes.every((outcome) => outcome.outcome === 'recorded')).toBe(true);
    const state = await killSwitch.getState();
    expect(state.mode).toBe('read_write');
    expect(state.window).toEqual({ total: 19, invalid: 19, rate: 1, windowMs: 60_000 });
    expect((await killSwitch.claimWrite(image)).verdict).toBe('allow');
  });

  it('does not trip under the threshold', async () => {
    const { killSwitch } = newSwitch();
    await record(killSwitch, 31, 10);
    expect((await killSwitch.getState()).mode).toBe('read_write');
  });

  it('trips in the same step as the outcome that reaches threshold and volume, then refuses writes', async () => {
    const seen: KillSwitchMode[] = [];
    const { killSwitch } = newSwitch({}, seen);
    const before = await record(killSwitch, 15, 4);
    expect(before.every((outcome) => outcome.outcome === 'recorded')).toBe(true);
    const [trip] = await record(killSwitch, 0, 1);
    expect(trip).toMatchObject({ outcome: 'tripped', mode: 'read_only', window: { total: 20, invalid: 5, rate: 0.25 } });
    expect(seen).toEqual(['read_write', 'read_only']);
    const state = await killSwitch.getState();
    expect(state).toMatchObject({ mode: 'read_only', source: 'auto', lastTrip: { total: 20, invalid: 5, rate: 0.25, tool: 'fetch_image', reason: 'unexpected_content_type:text/html' } });
    expect(state.reason).toContain('5 of 20 tool outputs invalid');
    expect(state.sinceMs).toBe(trip?.sinceMs);
    expect(await killSwitch.claimWrite(image)).toMatchObject({ verdict: 'refuse', mode: 'read_only' });
    // Further outcomes are still counted but do not trip again.
    expect((await record(killSwitch, 0, 1))[0]?.outcome).toBe('recorded');
  });

  it('resets to read_write with a cleared window, and an operator can stop writes by hand', async () => {
    const { killSwitch } = newSwitch({ minVolume: 2, threshold: 0.5 });
    await record(killSwitch, 0, 2);
    expect((await killSwitch.getState()).mode).toBe('read_only');
    const reset = await killSwitch.setMode({ mode: 'read_write', reason: 'upstream fixed' });
    expect(reset).toMatchObject({ mode: 'read_write', reason: 'upstream fixed', source: 'operator', window: { total: 0, invalid: 0 } });
    expect(reset.lastTrip?.invalid).toBe(2);
    expect((await killSwitch.claimWrite(image)).verdict).toBe('allow');
    await killSwitch.setMode({ mode: 'read_only', reason: 'incident 42' });
    expect(await killSwitch.claimWrite(image)).toMatchObject({ verdict: 'refuse', reason: 'incident 42' });
  });

  it('forgets outcomes that left the window', async () => {
    const { killSwitch } = newSwitch({ windowMs: 1000, minVolume: 3, threshold: 0.5 });
    await record(killSwitch, 0, 2);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const [after] = await record(killSwitch, 0, 1);
    expect(after).toMatchObject({ outcome: 'recorded', window: { total: 1, invalid: 1 } });
  });

  it('half-opens after the cool-down and lets exactly one probe write through', async () => {
    const seen: KillSwitchMode[] = [];
    const { killSwitch } = newSwitch({ minVolume: 2, threshold: 0.5, cooldownMs: 300 }, seen);
    await record(killSwitch, 0, 2);
    expect((await killSwitch.claimWrite(image)).verdict).toBe('refuse');
    await new Promise((resolve) => setTimeout(resolve, 350));
    const probe = await killSwitch.claimWrite(image);
    expect(probe.verdict).toBe('probe');
    expect(await killSwitch.claimWrite(image)).toMatchObject({ verdict: 'refuse', mode: 'half_open' });
    // A probe that ends without an output hands the slot back.
    if (probe.verdict !== 'probe') throw new Error('expected a probe');
    await killSwitch.releaseProbe(probe.probeToken);
    const second = await killSwitch.claimWrite(image);
    if (second.verdict !== 'probe') throw new Error('expected a second probe');
    // An invalid probe output re-opens the switch (and restarts the cool-down).
    expect((await killSwitch.recordOutcome({ tool: 'fetch_image', valid: false, reason: 'invalid_image', probeToken: second.probeToken, ...image })).outcome).toBe('probe_reopened');
    expect((await killSwitch.claimWrite(image)).verdict).toBe('refuse');
    await new Promise((resolve) => setTimeout(resolve, 350));
    const third = await killSwitch.claimWrite(image);
    if (third.verdict !== 'probe') throw new Error('expected a third probe');
    expect((await killSwitch.recordOutcome({ tool: 'fetch_image', valid: true, probeToken: third.probeToken, ...image })).outcome).toBe('probe_closed');
    expect((await killSwitch.getState()).mode).toBe('read_write');
    expect((await killSwitch.claimWrite(image)).verdict).toBe('allow');
    expect(seen).toEqual(['read_write', 'read_only', 'half_open', 'read_only', 'half_open', 'read_write']);
  });

  it('maps modes onto the gauge', () => {
    expect(['read_write', 'half_open', 'read_only'].map((mode) => killSwitchGaugeValue(mode as KillSwitchMode))).toEqual([0, 1, 2]);
  });
});
