// The model pause: "no model call of this scope before this has expired", one Redis key per scope,
// shared by every worker process and checked right before every call. A scope is one provider's
// limiter identity (its key or endpoint: provider-limiter-identity.ts) and one rate-limit class
// of models (the catalog's rateLimitClass), because that is what a limit belongs to: "rate limits
// are applied separately for each model" class, and each key's organization has its own
// (api/rate-limits). A 429 on Sonnet 4.x via provider A says nothing of Opus, nor of provider B.
// A 429's retry-after sets it (the API says when the bucket refills: api/rate-limits,
// "retry-after"); a 529 / overloaded_error sets it too, growing while the overload episode lasts.
// A 529 is kept per scope as well. api/errors says only "The API is temporarily overloaded … 529
// errors can occur when APIs experience high traffic across all users": across users, not whether
// across models, and the body names no scope (third-party accounts describe it as capacity for the
// model asked for, unconfirmed). One provider's overload is surely nothing to another's (Bedrock's
// serviceUnavailableException is AWS's capacity). Between classes the costs decide: if an overload
// is global, each class learns it from its own first 529, one wasted call per class per wave; if
// it is per model, a fleet-wide pause would stall every class that still answers for the whole
// episode. Nothing the API answers is wider than one key's organization, and the one answer of
// that width, the spend limit, has its own flag (spend-limit-flag.ts) and fails the run rather
// than pausing it, so no fleet-wide pause is kept.
// Every write is one Lua step that only ever extends the pause, so a shorter wait seen later (or
// two workers writing at once) never cuts a longer one.
import { createHash } from 'node:crypto';
import type { RedisClient } from '../redis/redis-connection.js';
import { LUA_REDIS_NOW_MS } from '../redis/lua-redis-time.js';
import { defineLuaCommands } from '../redis/define-lua-commands.js';

/**
 * bfExtendModelPause
 * KEYS[1] the scope's pause key (string: why, with PX expiry = the pause).
 * ARGV[1] wait in ms, ARGV[2] reason.
 * Returns {the pause remaining in ms after the call (>= ARGV[1] unless a longer one was in force),
 * Redis's clock now (ms)}: the pause holds from that moment for that long.
 */
const EXTEND_MODEL_PAUSE =
  LUA_REDIS_NOW_MS +
  `
local nowMs = redis_now_ms()
local wait = tonumber(ARGV[1])
local remaining = redis.call('PTTL', KEYS[1])
if remaining >= wait then return {remaining, nowMs} end
redis.call('SET', KEYS[1], ARGV[2], 'PX', wait)
return {wait, nowMs}
`;

/**
 * bfOverloadModelPause
 * KEYS[1] the scope's pause key, KEYS[2] the scope's overload episode (hash: step = consecutive overload pauses,
 * lastAt = when the latest overload was seen, epoch ms of the reporting worker).
 * ARGV[1] base ms, ARGV[2] cap ms, ARGV[3] how long the episode is remembered without a new
 * overload (ms), ARGV[4] now (epoch ms).
 * An overload met while a pause is already in force belongs to the same wave (calls that started
 * before it): it keeps the pause and does not grow it. Otherwise the episode counts one more
 * step and the pause becomes min(cap, base * 2^(step - 1)). Either way lastAt moves to now.
 * Returns {remaining ms, step, Redis's clock now (ms)}: the pause holds from that moment for
 * `remaining` ms, on the same clock every check reads.
 */
const OVERLOAD_MODEL_PAUSE =
  LUA_REDIS_NOW_MS +
  `
local nowMs = redis_now_ms()
local remaining = redis.call('PTTL', KEYS[1])
local step = tonumber(redis.call('HGET', KEYS[2], 'step') or '0')
redis.call('HSET', KEYS[2], 'lastAt', ARGV[4])
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[3]))
if remaining > 0 and step > 0 then return {remaining, step, nowMs} end
step = step + 1
redis.call('HSET', KEYS[2], 'step', step)
local wait = math.min(tonumber(ARGV[2]), tonumber(ARGV[1]) * 2 ^ (step - 1))
wait = math.floor(wait)
if remaining >= wait then return {remaining, step, nowMs} end
redis.call('SET', KEYS[1], 'overloaded', 'PX', wait)
return {wait, step, nowMs}
`;

/**
 * bfEndOverloadEpisode
 * KEYS[1] the scope's overload episode hash.
 * ARGV[1] when the successful call was sent (epoch ms).
 * Only a call sent after the latest overload proves the API answers again: an answer that was
 * already streaming when the episode began (minutes, for a long page) says nothing about now.
 * Returns 1 when the episode ended, 0 when it goes on.
 */
const END_OVERLOAD_EPISODE = `
local lastAt = tonumber(redis.call('HGET', KEYS[1], 'lastAt') or '-1')
if lastAt < 0 then return 0 end
if tonumber(ARGV[1]) <= lastAt then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

/**
 * bfCheckModelPause — the check right before a call, one command.
 * KEYS[1] the scope's pause key, KEYS[2] its overload episode. Returns {pause remaining ms (<= 0: none),
 * 1 when an overload episode is on, Redis's clock now (ms)}.
 */
const CHECK_MODEL_PAUSE =
  LUA_REDIS_NOW_MS +
  `
return {redis.call('PTTL', KEYS[1]), redis.call('EXISTS', KEYS[2]), redis_now_ms()}
`;

interface PauseCommands {
  bfCheckModelPause(pauseKey: string, episodeKey: string): Promise<[number, number, number]>;
  bfExtendModelPause(pauseKey: string, waitMs: number, reason: string): Promise<[number, number]>;
  bfOverloadModelPause(pauseKey: string, episodeKey: string, baseMs: number, capMs: number, memoryMs: number, nowMs: number): Promise<[number, number, number]>;
  bfEndOverloadEpisode(episodeKey: string, sentAtMs: number): Promise<number>;
}

/** A pause as set (or found longer) by a 429 or a 529. */
export interface PauseInForce {
  /** The pause now in force, in ms. */
  waitMs: number;
  /** When the pause was read or set, by Redis's clock (ms): it holds from here for waitMs. */
  atMs: number;
}

export interface OverloadPause extends PauseInForce {
  /** Which step of the episode's backoff this is (1, 2, 3 …). */
  step: number;
}

/** The check right before a call. */
export interface PauseCheck {
  /** The pause remaining, ms (0: none). */
  remainingMs: number;
  /** An overload episode is on: a success must be reported (`succeeded`). */
  overloadEpisode: boolean;
  /** When the check ran, by Redis's clock (ms): the clock the pause is kept on, so whether a call
   * was let out inside a pause is decided exactly (turn-start's `pause_checked_at_ms`, set
   * against model-overload-wait's `pause_from_ms`/`pause_until_ms`), not by the workers' clocks. */
  atMs: number;
}

export interface ModelCallPauseSettings {
  overloadBaseMs: number;
  overloadCapMs: number;
}

/** Whose calls one pause holds: one provider's, through one limiter identity, on one rate-limit
 * class of models. */
export interface ModelPauseScope {
  /** The provider's configured name (docs/providers.md). */
  provider: string;
  /** Its limiter identity: a hash of its key or endpoint, never the secret. */
  identity: string;
  /** The model's rate-limit class (rateLimitClassOf). */
  rateLimitClass: string;
}

/** The longest part of a key taken as it is; a longer or unsafe one is cut and hashed. */
const MAX_KEY_PART = 48;

/** One part of a hash tag: `{`, `}`, `:` or spaces would break the tag or the key's layout, and a
 * class is operator data (BUILDFLEET_MODEL_CAPABILITIES, up to 100 characters): what is not plain
 * is replaced and then told apart by a hash of the original, so two parts never meet. */
function keyPart(value: string): string {
  const plain = value.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, MAX_KEY_PART);
  if (plain === value) return value;
  return `${plain}~${createHash('sha256').update(value).digest('hex').slice(0, 12)}`;
}

/** The hash tag of one scope's keys: every script of the pause reads and writes keys of one scope
 * only, so each is slot-safe on Redis Cluster. */
export function modelPauseTag(scope: ModelPauseScope): string {
  return `model-pause:${keyPart(scope.provider)}:${keyPart(scope.identity)}:${keyPart(scope.rateLimitClass)}`;
}

/** The pause as the model worker and the turn runner use it, per scope. */
export class ModelCallPause {
  private readonly commands: PauseCommands;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly settings: ModelCallPauseSettings,
  ) {
    this.commands = defineLuaCommands<PauseCommands>(redis, {
      bfCheckModelPause: { numberOfKeys: 2, lua: CHECK_MODEL_PAUSE },
      bfExtendModelPause: { numberOfKeys: 1, lua: EXTEND_MODEL_PAUSE },
      bfOverloadModelPause: { numberOfKeys: 2, lua: OVERLOAD_MODEL_PAUSE },
      bfEndOverloadEpisode: { numberOfKeys: 1, lua: END_OVERLOAD_EPISODE },
    });
  }

  /** The scope's two keys, under its one hash tag. */
  keysOf(scope: ModelPauseScope): { pauseKey: string; episodeKey: string } {
    const base = `${this.prefix}:{${modelPauseTag(scope)}}`;
    return { pauseKey: `${base}:paused-until`, episodeKey: `${base}:overload-episode-state` };
  }

  /** The check right before a call, in one command: the scope's pause remaining (ms; Redis's own
   * clock, PTTL, so every process agrees whatever its local time) and whether an overload episode
   * of the scope is on (only then does a success need reporting: `succeeded`). */
  async check(scope: ModelPauseScope): Promise<PauseCheck> {
    const { pauseKey, episodeKey } = this.keysOf(scope);
    const [pttl, episode, atMs] = await this.commands.bfCheckModelPause(pauseKey, episodeKey);
    return { remainingMs: Math.max(0, Number(pttl)), overloadEpisode: Number(episode) === 1, atMs: Number(atMs) };
  }

  /** Why the scope's calls are paused (`rate_limited`, `overloaded`), or null. */
  async reason(scope: ModelPauseScope): Promise<string | null> {
    return this.redis.get(this.keysOf(scope).pauseKey);
  }

  /** A 429's retry-after: pause the scope's calls, in every worker, at least this long. */
  async pause(scope: ModelPauseScope, waitMs: number, reason = 'rate_limited'): Promise<PauseInForce> {
    const [remaining, atMs] = await this.commands.bfExtendModelPause(this.keysOf(scope).pauseKey, Math.max(1, Math.ceil(waitMs)), reason);
    return { waitMs: Number(remaining), atMs: Number(atMs) };
  }

  /** A 529 / overloaded_error: the next step of the scope's episode's growing pause. */
  async overloaded(scope: ModelPauseScope, now = Date.now()): Promise<OverloadPause> {
    const { pauseKey, episodeKey } = this.keysOf(scope);
    // The episode is forgotten after a quiet spell of a few caps: a new episode starts small.
    const memoryMs = this.settings.overloadCapMs * 4;
    const [waitMs, step, atMs] = await this.commands.bfOverloadModelPause(
      pauseKey,
      episodeKey,
      this.settings.overloadBaseMs,
      this.settings.overloadCapMs,
      memoryMs,
      now,
    );
    return { waitMs: Number(waitMs), step: Number(step), atMs: Number(atMs) };
  }

  /** A call of the scope sent at `sentAtMs` succeeded: if it was sent after the latest overload,
   * the episode is over and the next one starts at the base again. Clocks: the workers' own
   * (NTP-close); a skew only decides whether a call sent within it of the last overload ends the
   * episode. */
  async succeeded(scope: ModelPauseScope, sentAtMs: number): Promise<boolean> {
    return (await this.commands.bfEndOverloadEpisode(this.keysOf(scope).episodeKey, sentAtMs)) === 1;
  }
}
