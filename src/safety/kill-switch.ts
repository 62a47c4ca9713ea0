// The fleet-wide kill switch. Every validated tool output is recorded in a sliding window in
// Redis; when the invalid share reaches the threshold with enough volume, the same Lua step flips
// the switch to read_only. From then every write tool in every worker is refused — checked before
// it starts (claimWrite) and again, atomically, by the Lua script that performs its Redis write
// (src/engine/effect-scripts.ts) — while reads and runs go on. An operator resets it (api/routes/kill-switch-routes.ts);
// with a cool-down configured it also half-opens by itself and lets one probe write through.
//
// Redis Cluster: the kill switch keys (`<prefix>:killswitch`, `<prefix>:toolout`) carry no run
// hash tag, so the write scripts' in-script check is cross-slot there. On Cluster the fallback is
// the claimWrite GET-style check right before the write (not atomic with it: a write claimed in
// the last milliseconds before a trip may still land), and the two switch keys must share a slot.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { KeySpace } from '../engine/keys.js';
import { defineKillSwitchScripts, type KillSwitchScripts } from './kill-switch-scripts.js';
import { isKillSwitchMode, type KillSwitchMode } from './kill-switch-mode.js';
import type { ToolSafetyHooks } from './safety-hooks.js';

export interface KillSwitchSettings {
  /** Invalid share (0..1] of the window's outputs that trips the switch. */
  threshold: number;
  /** Outputs the window must hold before it may trip. */
  minVolume: number;
  windowMs: number;
  /** Half-open after this long following an automatic trip; 0 = never. */
  cooldownMs: number;
  /** How long one probe may hold the half-open slot before another may be claimed. */
  probeLeaseMs?: number;
}

export interface WindowFigures {
  total: number;
  invalid: number;
  /** invalid / total, 0 when empty, rounded to 4 places. */
  rate: number;
}

export interface KillSwitchState {
  mode: KillSwitchMode;
  reason: string | null;
  /** When the current mode began (ISO, Redis time). */
  since: string | null;
  sinceMs: number | null;
  /** Who set the mode: 'auto' (a trip or a probe) or 'operator'. */
  source: string | null;
  window: WindowFigures & { windowMs: number };
  /** The last automatic trip, kept after a reset for the record. */
  lastTrip: (WindowFigures & { atMs: number; at: string; tool: string; reason: string }) | null;
  settings: { threshold: number; minVolume: number; windowMs: number; cooldownMs: number };
}

export type OutcomeRecord = {
  outcome: 'recorded' | 'tripped' | 'probe_closed' | 'probe_reopened';
  mode: KillSwitchMode;
  window: WindowFigures;
  /** Redis time (ms) of the mode's start; for a trip, the trip instant. */
  sinceMs: number;
};

export type WriteClaim =
  | { verdict: 'allow'; redisTimeMs: number }
  | { verdict: 'probe'; probeToken: string; redisTimeMs: number }
  | { verdict: 'refuse'; mode: KillSwitchMode; reason: string; redisTimeMs: number };

function figures(total: number, invalid: number): WindowFigures {
  return { total, invalid, rate: total === 0 ? 0 : Math.round((invalid / total) * 10_000) / 10_000 };
}

/** The settings of a config. */
export function killSwitchSettingsOf(config: Config): KillSwitchSettings {
  return {
    threshold: config.BUILDFLEET_KILLSWITCH_THRESHOLD,
    minVolume: config.BUILDFLEET_KILLSWITCH_MIN_VOLUME,
    windowMs: config.BUILDFLEET_KILLSWITCH_WINDOW_MS,
    cooldownMs: config.BUILDFLEET_KILLSWITCH_COOLDOWN_MS,
  };
}

export class KillSwitch {
  private readonly scripts: KillSwitchScripts;
  private lastSeenMode: KillSwitchMode | null = null;

  constructor(
    private readonly options: {
      redis: Redis;
      keys: KeySpace;
      settings: KillSwitchSettings;
      logger?: Logger;
      hooks?: Pick<ToolSafetyHooks, 'onKillSwitchState'>;
    },
  ) {
    this.scripts = defineKillSwitchScripts(options.redis);
  }

  /** A switch over a fleet's Redis and config. */
  static forFleet(fleet: { redis: Redis; store: { keys: KeySpace }; config: Config; logger?: Logger }, hooks?: Pick<ToolSafetyHooks, 'onKillSwitchState'>): KillSwitch {
    return new KillSwitch({
      redis: fleet.redis,
      keys: fleet.store.keys,
      settings: killSwitchSettingsOf(fleet.config),
      ...(fleet.logger ? { logger: fleet.logger } : {}),
      ...(hooks ? { hooks } : {}),
    });
  }

  get settings(): KillSwitchSettings {
    return this.options.settings;
  }

  private observe(mode: string): KillSwitchMode {
    const known: KillSwitchMode = isKillSwitchMode(mode) ? mode : 'read_write';
    if (known !== this.lastSeenMode) {
      this.lastSeenMode = known;
      this.options.hooks?.onKillSwitchState?.(known);
    }
    return known;
  }

  /** Records one validated output (valid or not); trips the switch in the same step when the
   * window reaches the threshold with the minimum volume. */
  async recordOutcome({ tool, valid, reason = '', probeToken = '' }: { tool: string; valid: boolean; reason?: string; probeToken?: string }): Promise<OutcomeRecord> {
    const { keys, settings } = this.options;
    const [outcome, mode, total, invalid, sinceMs] = await this.scripts.bfKillSwitchRecord(
      keys.killSwitch(),
      keys.toolOutcomes(),
      valid ? '1' : '0',
      settings.windowMs,
      settings.threshold,
      settings.minVolume,
      tool,
      reason,
      probeToken,
    );
    const record: OutcomeRecord = { outcome, mode: this.observe(mode), window: figures(Number(total), Number(invalid)), sinceMs: Number(sinceMs) };
    if (outcome === 'tripped') {
      this.options.logger?.error(
        { event: 'killswitch-trip', tool, reason, window: record.window, window_ms: settings.windowMs, threshold: settings.threshold, min_volume: settings.minVolume, at_ms: record.sinceMs },
        'kill switch tripped: the fleet is read-only',
      );
    } else if (outcome !== 'recorded') {
      this.options.logger?.warn({ event: `killswitch-${outcome.replace('_', '-')}`, tool, reason }, 'kill switch probe outcome');
    }
    return record;
  }

  /** Asked before a write tool starts: allow, refuse, or let it through as the half-open probe. */
  async claimWrite(): Promise<WriteClaim> {
    const token = `probe_${randomBytes(8).toString('hex')}`;
    const lease = this.options.settings.probeLeaseMs ?? 120_000;
    const [verdict, mode, nowMs, reason] = await this.scripts.bfKillSwitchClaimWrite(this.options.keys.killSwitch(), this.options.settings.cooldownMs, token, lease);
    const seen = this.observe(mode);
    const redisTimeMs = Number(nowMs);
    if (verdict === 'allow') return { verdict, redisTimeMs };
    if (verdict === 'probe') return { verdict, probeToken: token, redisTimeMs };
    return { verdict: 'refuse', mode: seen, reason, redisTimeMs };
  }

  /** Hands back a probe that produced no validated output. */
  async releaseProbe(probeToken: string): Promise<void> {
    await this.scripts.bfKillSwitchReleaseProbe(this.options.keys.killSwitch(), probeToken);
  }

  /** An operator's switch: read_only stops writes fleet-wide until reset; read_write resets the
   * switch and clears the window. */
  async setMode({ mode, reason, source = 'operator' }: { mode: 'read_only' | 'read_write'; reason: string; source?: string }): Promise<KillSwitchState> {
    const [previous] = await this.scripts.bfKillSwitchSetMode(this.options.keys.killSwitch(), this.options.keys.toolOutcomes(), mode, reason, source);
    this.options.logger?.warn({ event: 'killswitch-set', mode, previous, reason, source }, `kill switch set to ${mode}`);
    this.observe(mode);
    return this.getState();
  }

  /** The state and the window figures at one Redis instant. */
  async getState(): Promise<KillSwitchState> {
    const { keys, settings } = this.options;
    const [flat, total, invalid] = await this.scripts.bfKillSwitchRead(keys.killSwitch(), keys.toolOutcomes(), settings.windowMs);
    const fields: Record<string, string> = {};
    for (let index = 0; index + 1 < flat.length; index += 2) fields[flat[index] as string] = flat[index + 1] as string;
    const sinceMs = fields.since_ms ? Number(fields.since_ms) : null;
    const tripAt = fields.trip_at_ms ? Number(fields.trip_at_ms) : null;
    return {
      mode: isKillSwitchMode(fields.mode) ? fields.mode : 'read_write',
      reason: fields.reason || null,
      since: sinceMs === null ? null : new Date(sinceMs).toISOString(),
      sinceMs,
      source: fields.source || null,
      window: { ...figures(Number(total), Number(invalid)), windowMs: settings.windowMs },
      lastTrip:
        tripAt === null
          ? null
          : {
              ...figures(Number(fields.trip_total ?? 0), Number(fields.trip_invalid ?? 0)),
              atMs: tripAt,
              at: new Date(tripAt).toISOString(),
              tool: fields.trip_tool ?? '',
              reason: fields.trip_reason ?? '',
            },
      settings: { threshold: settings.threshold, minVolume: settings.minVolume, windowMs: settings.windowMs, cooldownMs: settings.cooldownMs },
    };
  }
}
