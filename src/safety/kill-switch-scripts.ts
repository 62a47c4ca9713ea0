// Lua scripts of the fleet-wide kill switch. The switch's state and the sliding window of tool
// output outcomes change only inside these scripts, so every worker sees one order of events: the
// outcome that pushes the invalid rate over the threshold is the one that trips the switch, in the
// same step, and no write can be claimed between the two.
//
// Time is Redis TIME (ms) everywhere, so the trip instant can be compared with the write journal
// entries the write scripts stamp (src/engine/effect-scripts.ts), whichever machine the workers run on.
import { defineLuaCommands } from '../engine/define-lua-commands.js';
import type { Redis } from 'ioredis';

const NOW_MS = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
`;

// Window figures over the last ceil(ARGV[window] / 1000) one-second buckets, ending now.
const WINDOW_FIGURES = `
local function window_figures(window_key, window_ms, now)
  local second = math.floor(now / 1000)
  local span = math.ceil(window_ms / 1000)
  local fields = {}
  for s = second - span + 1, second do
    fields[#fields + 1] = 'n:' .. s
    fields[#fields + 1] = 'x:' .. s
  end
  local values = redis.call('HMGET', window_key, unpack(fields))
  local total, invalid = 0, 0
  for index = 1, #values, 2 do
    total = total + (tonumber(values[index]) or 0)
    invalid = invalid + (tonumber(values[index + 1]) or 0)
  end
  return total, invalid, span
end
`;

/**
 * bfKillSwitchRecord — records one validated tool output and trips the switch when it must.
 * KEYS[1] kill switch hash (mode, reason, since_ms, source, trip_*, probe, probe_until),
 * KEYS[2] window hash (fields n:<unix second> outputs, x:<unix second> invalid ones, pruned).
 * ARGV[1] '1' valid | '0' invalid, ARGV[2] window ms, ARGV[3] threshold (0..1], ARGV[4] minimum
 * volume, ARGV[5] tool, ARGV[6] reason ('' when valid), ARGV[7] probe token ('' when the output
 * is not a half-open probe's).
 * Returns {outcome, mode, total, invalid, since_ms}, outcome one of
 *   'recorded'        counted; the mode did not change
 *   'tripped'         this outcome took the rate to the threshold with the volume: read_write → read_only
 *   'probe_closed'    the half-open probe's output was valid: → read_write, window cleared
 *   'probe_reopened'  the half-open probe's output was invalid: → read_only, cool-down restarts
 */
const RECORD_OUTCOME =
  NOW_MS +
  WINDOW_FIGURES +
  `
local window_ms = tonumber(ARGV[2])
local second = math.floor(now / 1000)
local span = math.ceil(window_ms / 1000)
local valid = ARGV[1] == '1'
redis.call('HINCRBY', KEYS[2], 'n:' .. second, 1)
if not valid then redis.call('HINCRBY', KEYS[2], 'x:' .. second, 1) end
-- Drop buckets that left the window; a long idle gap is cleaned by one scan of the small hash.
local oldest = second - span
local pruned = tonumber(redis.call('HGET', KEYS[2], 'pruned') or '0')
if oldest > pruned then
  if oldest - pruned > span + 120 then
    for _, field in ipairs(redis.call('HKEYS', KEYS[2])) do
      local bucket = tonumber(string.match(field, '^[nx]:(%d+)$'))
      if bucket and bucket <= oldest then redis.call('HDEL', KEYS[2], field) end
    end
  else
    for bucket = pruned + 1, oldest do redis.call('HDEL', KEYS[2], 'n:' .. bucket, 'x:' .. bucket) end
  end
  redis.call('HSET', KEYS[2], 'pruned', oldest)
end
redis.call('PEXPIRE', KEYS[2], window_ms * 2 + 1000)
local total, invalid = window_figures(KEYS[2], window_ms, now)
local mode = redis.call('HGET', KEYS[1], 'mode') or 'read_write'
local since = tonumber(redis.call('HGET', KEYS[1], 'since_ms') or '0')

if ARGV[7] ~= '' and mode == 'half_open' and redis.call('HGET', KEYS[1], 'probe') == ARGV[7] then
  redis.call('HDEL', KEYS[1], 'probe', 'probe_until')
  if valid then
    redis.call('HSET', KEYS[1], 'mode', 'read_write', 'reason', 'the half-open probe write (' .. ARGV[5] .. ') produced a valid output', 'since_ms', now, 'source', 'auto')
    redis.call('DEL', KEYS[2])
    return {'probe_closed', 'read_write', 0, 0, now}
  end
  redis.call('HSET', KEYS[1], 'mode', 'read_only', 'reason', 'the half-open probe write (' .. ARGV[5] .. ') produced an invalid output: ' .. ARGV[6], 'since_ms', now, 'source', 'auto')
  return {'probe_reopened', 'read_only', total, invalid, now}
end

if mode == 'read_write' and total >= tonumber(ARGV[4]) and invalid / total >= tonumber(ARGV[3]) then
  local trigger = valid and ('at a valid output of ' .. ARGV[5] .. ' (volume reached)') or ('by ' .. ARGV[5] .. ' (' .. ARGV[6] .. ')')
  local reason = string.format('%d of %d tool outputs invalid (%.1f%%, threshold %.1f%%) in the last %d s; tripped %s',
    invalid, total, 100 * invalid / total, 100 * tonumber(ARGV[3]), span, trigger)
  redis.call('HSET', KEYS[1], 'mode', 'read_only', 'reason', reason, 'since_ms', now, 'source', 'auto',
    'trip_at_ms', now, 'trip_total', total, 'trip_invalid', invalid, 'trip_tool', ARGV[5], 'trip_reason', ARGV[6])
  redis.call('HDEL', KEYS[1], 'probe', 'probe_until')
  return {'tripped', 'read_only', total, invalid, now}
end
return {'recorded', mode, total, invalid, since}
`;

/**
 * bfKillSwitchClaimWrite — asked before a write tool starts.
 * KEYS[1] kill switch hash.
 * ARGV[1] cool-down ms (0: never half-open), ARGV[2] probe token to use if this write becomes the
 * probe, ARGV[3] probe lease ms (another probe may be claimed once it lapses).
 * Returns {verdict, mode, now_ms, reason}, verdict one of
 *   'allow'   read_write
 *   'probe'   half_open and this write is the one probe (its token is ARGV[2])
 *   'refuse'  read_only, or half_open with a probe already in flight
 * An automatic read_only whose cool-down has passed turns half_open here.
 */
const CLAIM_WRITE =
  NOW_MS +
  `
local mode = redis.call('HGET', KEYS[1], 'mode') or 'read_write'
local reason = redis.call('HGET', KEYS[1], 'reason') or ''
if mode == 'read_write' then return {'allow', mode, now, reason} end
local cooldown = tonumber(ARGV[1])
if mode == 'read_only' and cooldown > 0 and redis.call('HGET', KEYS[1], 'source') == 'auto' then
  local since = tonumber(redis.call('HGET', KEYS[1], 'since_ms') or '0')
  if now >= since + cooldown then
    mode = 'half_open'
    redis.call('HSET', KEYS[1], 'mode', mode, 'half_open_since_ms', now)
  end
end
if mode == 'half_open' then
  local holder = redis.call('HGET', KEYS[1], 'probe')
  local lease = tonumber(redis.call('HGET', KEYS[1], 'probe_until') or '0')
  if not holder or now > lease then
    redis.call('HSET', KEYS[1], 'probe', ARGV[2], 'probe_until', now + tonumber(ARGV[3]))
    return {'probe', mode, now, reason}
  end
end
return {'refuse', mode, now, reason}
`;

/**
 * bfKillSwitchReleaseProbe — a probe write that ended without a validated output (a tool error,
 * a crash) hands the probe back so another write can try.
 * KEYS[1] kill switch hash. ARGV[1] probe token.
 * Returns 1 when released, 0 when the token no longer held the probe.
 */
const RELEASE_PROBE = `
if redis.call('HGET', KEYS[1], 'probe') ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[1], 'probe', 'probe_until')
return 1
`;

/**
 * bfKillSwitchSetMode — an operator's read_only or read_write.
 * KEYS[1] kill switch hash, KEYS[2] window hash.
 * ARGV[1] 'read_only' | 'read_write', ARGV[2] reason, ARGV[3] source ('operator').
 * Returns {previous mode, now_ms}. read_write clears the window (the outcomes that tripped the
 * switch would otherwise trip it again at once) and any probe.
 */
const SET_MODE =
  NOW_MS +
  `
local previous = redis.call('HGET', KEYS[1], 'mode') or 'read_write'
redis.call('HSET', KEYS[1], 'mode', ARGV[1], 'reason', ARGV[2], 'since_ms', now, 'source', ARGV[3])
redis.call('HDEL', KEYS[1], 'probe', 'probe_until', 'half_open_since_ms')
if ARGV[1] == 'read_write' then redis.call('DEL', KEYS[2]) end
return {previous, now}
`;

/**
 * bfKillSwitchRead — the state and the window figures, read at one instant.
 * KEYS[1] kill switch hash, KEYS[2] window hash. ARGV[1] window ms.
 * Returns {flat HGETALL of KEYS[1], total, invalid, now_ms}.
 */
const READ_STATE =
  NOW_MS +
  WINDOW_FIGURES +
  `
local total, invalid = window_figures(KEYS[2], tonumber(ARGV[1]), now)
return {redis.call('HGETALL', KEYS[1]), total, invalid, now}
`;

export type RecordOutcomeReply = [outcome: 'recorded' | 'tripped' | 'probe_closed' | 'probe_reopened', mode: string, total: number, invalid: number, sinceMs: number];
export type ClaimWriteReply = [verdict: 'allow' | 'probe' | 'refuse', mode: string, nowMs: number, reason: string];

export interface KillSwitchScripts {
  bfKillSwitchRecord(
    switchKey: string,
    windowKey: string,
    valid: '1' | '0',
    windowMs: number,
    threshold: number,
    minVolume: number,
    tool: string,
    reason: string,
    probeToken: string,
  ): Promise<RecordOutcomeReply>;
  bfKillSwitchClaimWrite(switchKey: string, cooldownMs: number, probeToken: string, probeLeaseMs: number): Promise<ClaimWriteReply>;
  bfKillSwitchReleaseProbe(switchKey: string, probeToken: string): Promise<number>;
  bfKillSwitchSetMode(switchKey: string, windowKey: string, mode: string, reason: string, source: string): Promise<[string, number]>;
  bfKillSwitchRead(switchKey: string, windowKey: string, windowMs: number): Promise<[string[], number, number, number]>;
}

const definitions = {
  bfKillSwitchRecord: { numberOfKeys: 2, lua: RECORD_OUTCOME },
  bfKillSwitchClaimWrite: { numberOfKeys: 1, lua: CLAIM_WRITE },
  bfKillSwitchReleaseProbe: { numberOfKeys: 1, lua: RELEASE_PROBE },
  bfKillSwitchSetMode: { numberOfKeys: 2, lua: SET_MODE },
  bfKillSwitchRead: { numberOfKeys: 2, lua: READ_STATE },
} as const;

/** Registers the scripts on a connection (idempotent) and returns them typed. */
export function defineKillSwitchScripts(redis: Redis): KillSwitchScripts {
  return defineLuaCommands<KillSwitchScripts>(redis, definitions);
}
