// Lua scripts of the scoped kill switch. The scopes' states and the sliding windows of tool output
// outcomes change only inside these scripts, so every worker sees one order of events: the outcome
// that pushes a scope over its threshold is the one that trips it, in the same step, and no write
// can be claimed between the two.
//
// State: the fleet scope in its own hash (keys.ts killSwitch(), `<prefix>:{<prefix>-killswitch}`: mode, reason, since_ms, source,
// probe, probe_until, floor_ms, trip_*); every tenant and upstream scope that is tripped, half-open
// or recently reset as one JSON entry of the scopes hash (kill-switch-keys.ts). A `floor_ms` (Redis
// ms) marks a reset: outcomes recorded before it no longer count in that scope's windows. The
// fleet's floor applies to every window, so a fleet reset forgets the spike everywhere. A floor
// is exact, not rounded to its one-second bucket: the first outcome a window records after a
// floor stores what the floor's bucket held before it (`base_*`), and the figures subtract that.
//
// Redis Cluster: every key of the switch shares one hash tag (keys.ts), so each script is in one
// slot. The one piece of the switch's state that is a run's — the upstreams the run's writes depend
// on — is the run engine's (RunEngine.noteRunUpstream / liveUpstreamsOf, in the run's slot): the
// switch notes a dependency and reads the live ones in steps of their own (kill-switch.ts says why
// that costs no guarantee).
//
// Time is Redis TIME (ms) everywhere, so the trip instant can be compared with the write journal
// entries the write scripts stamp (src/engine/effect-scripts.ts), whichever machine the workers run on.
import { defineLuaCommands } from '../redis/define-lua-commands.js';
import { LUA_RUN_UPSTREAM_SCOPES } from '../engine/index.js';
import type { RedisClient } from '../redis/redis-connection.js';
import { LUA_REDIS_NOW_MS } from '../redis/lua-redis-time.js';

const NOW_MS =
  LUA_REDIS_NOW_MS +
  `
local now = redis_now_ms()
`;

// Window figures over the last ceil(window_ms / 1000) one-second buckets ending now, counting only
// the outcomes recorded after floor_ms (a reset; nil for none). add_outcome counts one outcome,
// first noting the floor bucket's pre-floor counts, and prunes old buckets.
const WINDOWS = `
local function window_figures(window_key, window_ms, now, floor_ms)
  local second = math.floor(now / 1000)
  local span = math.ceil(window_ms / 1000)
  local first = second - span + 1
  local base_n, base_x = 0, 0
  if floor_ms and math.floor(floor_ms / 1000) >= first then
    local base = redis.call('HMGET', window_key, 'base_floor_ms', 'base_n', 'base_x')
    -- Nothing recorded since the floor: nothing counts.
    if tonumber(base[1] or '') ~= floor_ms then return 0, 0 end
    first = math.floor(floor_ms / 1000)
    base_n, base_x = tonumber(base[2]) or 0, tonumber(base[3]) or 0
  end
  local fields = {}
  for s = first, second do
    fields[#fields + 1] = 'n:' .. s
    fields[#fields + 1] = 'x:' .. s
  end
  local values = redis.call('HMGET', window_key, unpack(fields))
  local total, invalid = 0, 0
  for index = 1, #values, 2 do
    total = total + (tonumber(values[index]) or 0)
    invalid = invalid + (tonumber(values[index + 1]) or 0)
  end
  return total - base_n, invalid - base_x
end
local function add_outcome(window_key, valid, window_ms, now, floor_ms)
  local second = math.floor(now / 1000)
  local span = math.ceil(window_ms / 1000)
  if floor_ms and tonumber(redis.call('HGET', window_key, 'base_floor_ms') or '') ~= floor_ms then
    local bucket = math.floor(floor_ms / 1000)
    redis.call('HSET', window_key, 'base_floor_ms', floor_ms,
      'base_n', redis.call('HGET', window_key, 'n:' .. bucket) or 0, 'base_x', redis.call('HGET', window_key, 'x:' .. bucket) or 0)
  end
  redis.call('HINCRBY', window_key, 'n:' .. second, 1)
  if not valid then redis.call('HINCRBY', window_key, 'x:' .. second, 1) end
  -- Drop buckets that left the window; a long idle gap is cleaned by one scan of the small hash.
  local oldest = second - span
  local pruned = tonumber(redis.call('HGET', window_key, 'pruned') or '0')
  if oldest > pruned then
    if oldest - pruned > span + 120 then
      for _, field in ipairs(redis.call('HKEYS', window_key)) do
        local bucket = tonumber(string.match(field, '^[nx]:(%d+)$'))
        if bucket and bucket <= oldest then redis.call('HDEL', window_key, field) end
      end
    else
      for bucket = pruned + 1, oldest do redis.call('HDEL', window_key, 'n:' .. bucket, 'x:' .. bucket) end
    end
    redis.call('HSET', window_key, 'pruned', oldest)
  end
  redis.call('PEXPIRE', window_key, window_ms * 2 + 1000)
end
-- The later of two floors (either may be nil).
local function later_floor(a, b)
  if a == nil then return b end
  if b == nil then return a end
  return math.max(a, b)
end
`;

/**
 * bfKillSwitchRecord — records one validated tool output in the fleet, tenant and shared windows
 * and trips every scope it must, in one step.
 * KEYS[1] fleet hash, KEYS[2] fleet window, KEYS[3] scopes hash, KEYS[4] trips list, KEYS[5] tenant
 * window, KEYS[6] the shared window (an upstream's, or a fleet's own tool's), KEYS[7] fleet
 * spiking-tenants zset, KEYS[8] the shared window's spiking-tenants zset, KEYS[9] its
 * failing-tenants zset, KEYS[10] the tenant's own window on it.
 * ARGV[1] '1' valid | '0' invalid, ARGV[2] window ms, ARGV[3] threshold (0..1], ARGV[4] minimum
 * volume, ARGV[5] tool, ARGV[6] reason ('' when valid), ARGV[7] probe token ('' unless the output
 * is a half-open probe's), ARGV[8] tenant, ARGV[9] the shared window's id: 'upstream:<tool>:<host>'
 * for a shared upstream, 'tool:<tool>' for a fleet's own tool, 'site:<tool>' for a URL on the
 * fleet's own sites origin (no shared window: KEYS[6] and KEYS[8..10] are left untouched),
 * ARGV[10] tenants a fleet-wide spike needs, ARGV[11] spiking tenants an upstream trip needs,
 * ARGV[12] run id (kept in the trip record).
 *
 * A tenant is *spiking* — and counts toward the fleet for a window's time — when its own window
 * reaches threshold and volume (it would trip, or has). It is spiking *on an upstream* (or on an
 * own tool) when its own outputs from it are at or over the threshold at one of its invalid
 * outputs there. An upstream's *failing* tenants are those with any invalid output from it in the
 * window. Trips, only from read_write and only while the fleet is read_write (a tripped fleet
 * covers every write already):
 *   fleet     cause 'own_tool': a fleet's own tool's window reaches threshold and volume, with
 *             >= ARGV[10] tenants spiking on it (one tenant making an own tool's output invalid
 *             — check_broken_images over a page it wrote — trips its own scope only);
 *             cause 'upstream': an upstream's window does, with >= ARGV[11] tenants spiking on it
 *             and >= ARGV[10] failing on it (one broken upstream under several tenants), judged
 *             also while that upstream's own scope is tripped;
 *             cause 'tenants': the fleet window does, with >= ARGV[10] spiking tenants
 *   upstream  cause 'tenants': its window does, with >= ARGV[11] tenants spiking on it
 *   tenant    cause 'volume': its window does
 * Tenant and upstream trips latch: their windows stop filling (their writes are refused), so
 * every fleet-wide condition is judged from evidence kept in the windows and the sorted sets.
 * A probe's output closes (valid) or re-opens (invalid) every scope whose probe it holds.
 * Returns {fleet mode, fleet total, fleet invalid, fleet since_ms, change...}, each change a JSON
 * object {scope, outcome: 'tripped'|'probe_closed'|'probe_reopened', mode, total, invalid,
 * at_ms, reason, cause, tenants?}, the fleet's first.
 */
const RECORD_OUTCOME =
  NOW_MS +
  WINDOWS +
  `
local window_ms = tonumber(ARGV[2])
local threshold = tonumber(ARGV[3])
local min_volume = tonumber(ARGV[4])
local fleet_min, upstream_min = tonumber(ARGV[10]), tonumber(ARGV[11])
local valid = ARGV[1] == '1'
local tool, why, token, tenant, upstream = ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9]
-- A shared upstream (a scope of its own, and a dependency of the run), a fleet's own tool (a
-- window shared by every tenant, no scope), or the fleet's own sites origin (no shared window).
local has_host = string.sub(upstream, 1, 9) == 'upstream:'
local own_tool = string.sub(upstream, 1, 5) == 'tool:'
local shared = has_host or own_tool
local span = math.ceil(window_ms / 1000)
local tenant_scope = 'tenant:' .. tenant
local changes = {}
local function over(total, invalid) return total >= min_volume and invalid / total >= threshold end
local function pct(part, whole) return whole == 0 and 0 or 100 * part / whole end

local fleet_floor = tonumber(redis.call('HGET', KEYS[1], 'floor_ms') or '')
local function scope_state(id)
  local raw = redis.call('HGET', KEYS[3], id)
  if not raw then return nil end
  return cjson.decode(raw)
end
local function floor_of(state) return later_floor(fleet_floor, state and state.floor_ms or nil) end
-- Members of a tenants zset within the window and after the floor (older ones are dropped).
local function tenants_in(key, floor_ms)
  local since = now - window_ms
  if floor_ms and floor_ms + 1 > since then since = floor_ms + 1 end
  redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. (now - window_ms))
  return redis.call('ZCOUNT', key, since, '+inf')
end
local tenant_state = scope_state(tenant_scope)
local upstream_state = has_host and scope_state(upstream) or nil

add_outcome(KEYS[2], valid, window_ms, now, fleet_floor)
add_outcome(KEYS[5], valid, window_ms, now, floor_of(tenant_state))
if shared then
  add_outcome(KEYS[6], valid, window_ms, now, floor_of(upstream_state))
  add_outcome(KEYS[10], valid, window_ms, now, floor_of(upstream_state))
end
local function mark(key)
  redis.call('ZADD', key, now, tenant)
  redis.call('PEXPIRE', key, window_ms * 2)
end

-- Is this output's tenant spiking, overall and on this upstream (or own tool)?
local tenant_total, tenant_invalid = window_figures(KEYS[5], window_ms, now, floor_of(tenant_state))
if over(tenant_total, tenant_invalid) then mark(KEYS[7]) end
if not valid then
  if shared then
    mark(KEYS[9])
    local pair_total, pair_invalid = window_figures(KEYS[10], window_ms, now, floor_of(upstream_state))
    if pair_invalid / pair_total >= threshold then mark(KEYS[8]) end
  end
end

-- A probe's output settles every scope whose probe it holds.
local fleet_mode = redis.call('HGET', KEYS[1], 'mode') or 'read_write'
if token ~= '' then
  if fleet_mode == 'half_open' and redis.call('HGET', KEYS[1], 'probe') == token then
    redis.call('HDEL', KEYS[1], 'probe', 'probe_until')
    if valid then
      local reason = 'the half-open probe write (' .. tool .. ') produced a valid output'
      redis.call('HSET', KEYS[1], 'mode', 'read_write', 'reason', reason, 'since_ms', now, 'source', 'auto', 'floor_ms', now)
      redis.call('DEL', KEYS[2], KEYS[7])
      fleet_mode = 'read_write'
      fleet_floor = now
      changes[#changes + 1] = cjson.encode({scope = 'fleet', outcome = 'probe_closed', mode = 'read_write', total = 0, invalid = 0,
        at_ms = now, reason = reason, cause = 'probe'})
    else
      local reason = 'the half-open probe write (' .. tool .. ') produced an invalid output: ' .. why
      redis.call('HSET', KEYS[1], 'mode', 'read_only', 'reason', reason, 'since_ms', now, 'source', 'auto')
      fleet_mode = 'read_only'
      changes[#changes + 1] = cjson.encode({scope = 'fleet', outcome = 'probe_reopened', mode = 'read_only', total = 0, invalid = 0,
        at_ms = now, reason = reason, cause = 'probe'})
    end
  end
  local flat = redis.call('HGETALL', KEYS[3])
  for index = 1, #flat, 2 do
    local id, state = flat[index], cjson.decode(flat[index + 1])
    if state.mode == 'half_open' and state.probe == token then
      state.probe = nil
      state.probe_until = nil
      state.since_ms = now
      state.source = 'auto'
      if valid then
        state.mode = 'read_write'
        state.reason = 'the half-open probe write (' .. tool .. ') produced a valid output'
        state.floor_ms = now
        if string.sub(id, 1, 7) == 'tenant:' then redis.call('ZREM', KEYS[7], string.sub(id, 8)) end
      else
        state.mode = 'read_only'
        state.reason = 'the half-open probe write (' .. tool .. ') produced an invalid output: ' .. why
      end
      redis.call('HSET', KEYS[3], id, cjson.encode(state))
      if id == tenant_scope then tenant_state = state end
      if id == upstream then upstream_state = state end
      changes[#changes + 1] = cjson.encode({scope = id, outcome = valid and 'probe_closed' or 'probe_reopened', mode = state.mode,
        total = 0, invalid = 0, at_ms = now, reason = state.reason, cause = 'probe'})
    end
  end
end

-- A probe that closed a scope moved its floor (and the fleet's moves every floor): judge from here on.
tenant_total, tenant_invalid = window_figures(KEYS[5], window_ms, now, floor_of(tenant_state))

local trigger = valid and ('at a valid output of ' .. tool .. ' (volume reached)') or ('by ' .. tool .. ' (' .. why .. ')')
local function describe(total, invalid, what, after)
  return string.format('%d of %d tool outputs%s invalid (%.1f%%, threshold %.1f%%) in the last %d s',
    invalid, total, what, pct(invalid, total), 100 * threshold, span) .. after .. '; tripped ' .. trigger
end
local function remember(id, total, invalid, cause, tenants, reason)
  redis.call('LPUSH', KEYS[4], cjson.encode({scope = id, at_ms = now, total = total, invalid = invalid, tool = tool, reason = why,
    cause = cause, tenants = tenants, run_id = ARGV[12], summary = reason}))
  redis.call('LTRIM', KEYS[4], 0, 49)
  changes[#changes + 1] = cjson.encode({scope = id, outcome = 'tripped', mode = 'read_only', total = total, invalid = invalid,
    at_ms = now, reason = reason, cause = cause, tenants = tenants})
end
local function trip_scope(id, total, invalid, cause, tenants, reason)
  local state = {mode = 'read_only', reason = reason, since_ms = now, source = 'auto',
    trip = {at_ms = now, total = total, invalid = invalid, tool = tool, reason = why, cause = cause}}
  redis.call('HSET', KEYS[3], id, cjson.encode(state))
  remember(id, total, invalid, cause, tenants, reason)
end

if fleet_mode == 'read_write' then
  local cause, total, invalid, tenants, reason = nil, 0, 0, nil, ''
  local upstream_trip = nil
  if own_tool then
    -- Counted like an upstream: a tenant can make an own tool's output invalid with what it wrote,
    -- so one tenant's spike on it is that tenant's (its own scope trips below), not the fleet's.
    local own_total, own_invalid = window_figures(KEYS[6], window_ms, now, fleet_floor)
    if over(own_total, own_invalid) then
      local spiking = tenants_in(KEYS[8], fleet_floor)
      if spiking >= fleet_min then
        cause, total, invalid, tenants = 'own_tool', own_total, own_invalid, spiking
        reason = describe(total, invalid, '', string.format(" from the fleet's own tool %s, spiking for %d tenants", tool, spiking))
      end
    end
  elseif has_host then
    -- Judged even while the upstream's own scope is tripped: an upstream spike that spreads to
    -- more tenants becomes fleet-wide.
    local floor_ms = floor_of(upstream_state)
    local upstream_total, upstream_invalid = window_figures(KEYS[6], window_ms, now, floor_ms)
    if over(upstream_total, upstream_invalid) then
      local spiking = tenants_in(KEYS[8], floor_ms)
      if spiking >= upstream_min then
        local failing = tenants_in(KEYS[9], floor_ms)
        local what = ' of ' .. string.sub(upstream, 10)
        if failing >= fleet_min then
          cause, total, invalid, tenants = 'upstream', upstream_total, upstream_invalid, failing
          reason = describe(total, invalid, what, string.format(', failing for %d tenants (%d spiking on it)', failing, spiking))
        elseif not upstream_state or upstream_state.mode == 'read_write' then
          upstream_trip = {upstream_total, upstream_invalid, spiking,
            describe(upstream_total, upstream_invalid, what, string.format(' from %d spiking tenants', spiking))}
        end
      end
    end
  end
  if not cause then
    local fleet_total, fleet_invalid = window_figures(KEYS[2], window_ms, now, fleet_floor)
    if over(fleet_total, fleet_invalid) then
      local spiking = tenants_in(KEYS[7], fleet_floor)
      if spiking >= fleet_min then
        cause, total, invalid, tenants = 'tenants', fleet_total, fleet_invalid, spiking
        reason = describe(total, invalid, '', string.format(' from %d spiking tenants', spiking))
      end
    end
  end
  if cause then
    -- The fleet: the narrower scopes would add nothing.
    redis.call('HSET', KEYS[1], 'mode', 'read_only', 'reason', reason, 'since_ms', now, 'source', 'auto',
      'trip_at_ms', now, 'trip_total', total, 'trip_invalid', invalid, 'trip_tool', tool, 'trip_reason', why, 'trip_cause', cause, 'trip_tenants', tenants or 0)
    redis.call('HDEL', KEYS[1], 'probe', 'probe_until')
    fleet_mode = 'read_only'
    remember('fleet', total, invalid, cause, tenants, reason)
  else
    if (not tenant_state or tenant_state.mode == 'read_write') and over(tenant_total, tenant_invalid) then
      trip_scope(tenant_scope, tenant_total, tenant_invalid, 'volume', nil, describe(tenant_total, tenant_invalid, ' of tenant ' .. tenant, ''))
    end
    if upstream_trip then trip_scope(upstream, upstream_trip[1], upstream_trip[2], 'tenants', upstream_trip[3], upstream_trip[4]) end
  end
end

local fleet_total, fleet_invalid = window_figures(KEYS[2], window_ms, now, fleet_floor)
local reply = {fleet_mode, fleet_total, fleet_invalid, tonumber(redis.call('HGET', KEYS[1], 'since_ms') or '0')}
for _, change in ipairs(changes) do reply[#reply + 1] = change end
return reply
`;

/**
 * bfKillSwitchClaimWrite — asked before a write tool starts; consults every scope that covers it.
 * KEYS[1] fleet hash, KEYS[2] scopes hash.
 * ARGV[1] cool-down ms (0: never half-open), ARGV[2] probe token to use if this write becomes the
 * probe, ARGV[3] probe lease ms (another probe may be claimed once it lapses), ARGV[4] the run's
 * tenant, ARGV[5] a JSON array of the upstreams the run depends on now (RunEngine.liveUpstreamsOf,
 * read just before), `["*"]` for every upstream.
 * Scopes, in this order: the fleet, the run's tenant, every upstream the run depends on until now
 * (it recorded an output from it within the window) — found by walking the smaller of the run's
 * upstreams and the tripped scopes (run-upstream-scopes-lua.ts), so a run that read many hosts
 * does not make its claims slow. A write tool's own fetch (fetch_image) is not
 * a dependency until its output is recorded: its content is validated before anything is written,
 * and its outcome is the evidence that tells a broken upstream of one tenant from one of many.
 * An automatic read_only whose cool-down has passed turns half_open here.
 * Returns {verdict, fleet mode, now_ms, reason, scope id, scope mode}, verdict one of
 *   'allow'   every scope read_write
 *   'probe'   no scope refuses, and this write holds the probe (token ARGV[2]) of every half_open one
 *   'refuse'  the first scope that is read_only, or half_open with a probe in flight (its id,
 *             mode and reason are returned; no probe is taken)
 */
const CLAIM_WRITE =
  NOW_MS +
  LUA_RUN_UPSTREAM_SCOPES +
  `
local cooldown = tonumber(ARGV[1])
local lease_until = now + tonumber(ARGV[3])

local fleet_mode = redis.call('HGET', KEYS[1], 'mode') or 'read_write'
if fleet_mode == 'read_only' and cooldown > 0 and redis.call('HGET', KEYS[1], 'source') == 'auto' then
  if now >= tonumber(redis.call('HGET', KEYS[1], 'since_ms') or '0') + cooldown then
    fleet_mode = 'half_open'
    redis.call('HSET', KEYS[1], 'mode', fleet_mode, 'half_open_since_ms', now)
  end
end
local fleet_reason = redis.call('HGET', KEYS[1], 'reason') or ''
if fleet_mode == 'read_only' then return {'refuse', fleet_mode, now, fleet_reason, 'fleet', fleet_mode} end
local fleet_probe = false
if fleet_mode == 'half_open' then
  local holder = redis.call('HGET', KEYS[1], 'probe')
  if holder and now <= tonumber(redis.call('HGET', KEYS[1], 'probe_until') or '0') then
    return {'refuse', fleet_mode, now, fleet_reason, 'fleet', fleet_mode}
  end
  fleet_probe = true
end

local probes = {}
-- One scope entry: turns half-open after its cool-down; returns the refusal, or nil (noting a
-- half-open scope whose probe this write may take).
local function judge(id, raw)
  local state = cjson.decode(raw)
  if state.mode == 'read_only' and cooldown > 0 and state.source == 'auto' and now >= (state.since_ms or 0) + cooldown then
    state.mode = 'half_open'
    state.half_open_since_ms = now
    redis.call('HSET', KEYS[2], id, cjson.encode(state))
  end
  if state.mode == 'read_only' then return {'refuse', fleet_mode, now, state.reason or '', id, 'read_only'} end
  if state.mode == 'half_open' then
    if state.probe and now <= (state.probe_until or 0) then return {'refuse', fleet_mode, now, state.reason or '', id, 'half_open'} end
    probes[#probes + 1] = {id, state}
  end
  return nil
end
local tenant_scope = 'tenant:' .. ARGV[4]
local tenant_raw = redis.call('HGET', KEYS[2], tenant_scope)
local refusal = nil
if tenant_raw then refusal = judge(tenant_scope, tenant_raw) end
if refusal then return refusal end
refusal = each_listed_upstream_scope(KEYS[2], cjson.decode(ARGV[5]), judge)
if refusal then return refusal end

if not fleet_probe and #probes == 0 then return {'allow', fleet_mode, now, '', '', ''} end
if fleet_probe then redis.call('HSET', KEYS[1], 'probe', ARGV[2], 'probe_until', lease_until) end
for _, entry in ipairs(probes) do
  entry[2].probe = ARGV[2]
  entry[2].probe_until = lease_until
  redis.call('HSET', KEYS[2], entry[1], cjson.encode(entry[2]))
end
return {'probe', fleet_mode, now, '', fleet_probe and 'fleet' or probes[1][1], 'half_open'}
`;

/**
 * bfKillSwitchReleaseProbe — a probe write that ended without a validated output (a tool error,
 * a crash) hands every probe it holds back so another write can try.
 * KEYS[1] fleet hash, KEYS[2] scopes hash. ARGV[1] probe token.
 * Returns the number of scopes released.
 */
const RELEASE_PROBE = `
local released = 0
if redis.call('HGET', KEYS[1], 'probe') == ARGV[1] then
  redis.call('HDEL', KEYS[1], 'probe', 'probe_until')
  released = released + 1
end
local flat = redis.call('HGETALL', KEYS[2])
for index = 1, #flat, 2 do
  local state = cjson.decode(flat[index + 1])
  if state.probe == ARGV[1] then
    state.probe = nil
    state.probe_until = nil
    redis.call('HSET', KEYS[2], flat[index], cjson.encode(state))
    released = released + 1
  end
end
return released
`;

/**
 * bfKillSwitchSetMode — an operator's read_only or read_write for the fleet.
 * KEYS[1] fleet hash, KEYS[2] fleet window, KEYS[3] fleet spiking-tenants zset.
 * ARGV[1] 'read_only' | 'read_write', ARGV[2] reason, ARGV[3] source ('operator').
 * Returns {previous mode, now_ms}. read_write clears the window and the spiking tenants, and sets
 * the fleet's floor, which every scope's window honours (the outcomes that tripped the switch
 * would otherwise trip it again at once), and drops any probe.
 */
const SET_MODE =
  NOW_MS +
  `
local previous = redis.call('HGET', KEYS[1], 'mode') or 'read_write'
redis.call('HSET', KEYS[1], 'mode', ARGV[1], 'reason', ARGV[2], 'since_ms', now, 'source', ARGV[3])
redis.call('HDEL', KEYS[1], 'probe', 'probe_until', 'half_open_since_ms')
if ARGV[1] == 'read_write' then
  redis.call('DEL', KEYS[2], KEYS[3])
  redis.call('HSET', KEYS[1], 'floor_ms', now)
end
return {previous, now}
`;

/**
 * bfKillSwitchSetScopeMode — an operator's read_only or read_write for one tenant or upstream scope.
 * KEYS[1] scopes hash, KEYS[2] fleet spiking-tenants zset.
 * ARGV[1] scope id, ARGV[2] 'read_only' | 'read_write', ARGV[3] reason, ARGV[4] source, ARGV[5]
 * the tenant of a tenant scope ('' otherwise).
 * Returns {previous mode, now_ms}. read_write sets the scope's floor (its window restarts) and, for
 * a tenant, drops it from the fleet's spiking tenants; the last trip is kept for the record.
 */
const SET_SCOPE_MODE =
  NOW_MS +
  `
local raw = redis.call('HGET', KEYS[1], ARGV[1])
local state = raw and cjson.decode(raw) or {}
local previous = state.mode or 'read_write'
state.mode = ARGV[2]
state.reason = ARGV[3]
state.since_ms = now
state.source = ARGV[4]
state.probe = nil
state.probe_until = nil
state.half_open_since_ms = nil
if ARGV[2] == 'read_write' then
  state.floor_ms = now
  if ARGV[5] ~= '' then redis.call('ZREM', KEYS[2], ARGV[5]) end
end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(state))
return {previous, now}
`;

/**
 * bfKillSwitchRead — the fleet state, its window, every scope entry and the last trips, at one instant.
 * KEYS[1] fleet hash, KEYS[2] fleet window, KEYS[3] scopes hash, KEYS[4] trips list, KEYS[5] fleet
 * spiking-tenants zset. ARGV[1] window ms, ARGV[2] trips to return.
 * Scope entries that are read_write and whose floor left the window are deleted on the way.
 * Returns {flat HGETALL of KEYS[1], total, invalid, now_ms, flat scope entries, trips, spiking tenants}.
 */
const READ_STATE =
  NOW_MS +
  WINDOWS +
  `
local window_ms = tonumber(ARGV[1])
local fleet_floor = tonumber(redis.call('HGET', KEYS[1], 'floor_ms') or '')
local total, invalid = window_figures(KEYS[2], window_ms, now, fleet_floor)
local oldest = now - window_ms
local scopes = {}
local flat = redis.call('HGETALL', KEYS[3])
for index = 1, #flat, 2 do
  local state = cjson.decode(flat[index + 1])
  if state.mode == 'read_write' and (state.floor_ms or 0) < oldest then
    redis.call('HDEL', KEYS[3], flat[index])
  else
    scopes[#scopes + 1] = flat[index]
    scopes[#scopes + 1] = flat[index + 1]
  end
end
local since = now - window_ms
if fleet_floor and fleet_floor + 1 > since then since = fleet_floor + 1 end
local spiking = redis.call('ZCOUNT', KEYS[5], since, '+inf')
return {redis.call('HGETALL', KEYS[1]), total, invalid, now, scopes, redis.call('LRANGE', KEYS[4], 0, tonumber(ARGV[2]) - 1), spiking}
`;

/**
 * bfKillSwitchWindows — the figures of several scope windows at one instant.
 * KEYS[1..n] window hashes. ARGV[1] window ms, ARGV[2..n+1] each window's floor in ms ('' for none).
 * Returns {total_1, invalid_1, total_2, invalid_2, …}.
 */
const READ_WINDOWS =
  NOW_MS +
  WINDOWS +
  `
local reply = {}
for index, key in ipairs(KEYS) do
  local total, invalid = window_figures(key, tonumber(ARGV[1]), now, tonumber(ARGV[index + 1] or ''))
  reply[#reply + 1] = total
  reply[#reply + 1] = invalid
end
return reply
`;

export type RecordOutcomeReply = [fleetMode: string, total: number, invalid: number, sinceMs: number, ...changes: string[]];
export type ClaimWriteReply = [verdict: 'allow' | 'probe' | 'refuse', fleetMode: string, nowMs: number, reason: string, scopeId: string, scopeMode: string];

export interface KillSwitchScripts {
  /** 10 keys, then 12 arguments, in the order of the script's header. */
  bfKillSwitchRecord(...keysThenArguments: Array<string | number>): Promise<RecordOutcomeReply>;
  bfKillSwitchClaimWrite(
    switchKey: string,
    scopesKey: string,
    cooldownMs: number,
    probeToken: string,
    probeLeaseMs: number,
    tenant: string,
    listedUpstreams: string,
  ): Promise<ClaimWriteReply>;
  bfKillSwitchReleaseProbe(switchKey: string, scopesKey: string, probeToken: string): Promise<number>;
  bfKillSwitchSetMode(switchKey: string, windowKey: string, tenantsKey: string, mode: string, reason: string, source: string): Promise<[string, number]>;
  bfKillSwitchSetScopeMode(
    scopesKey: string,
    tenantsKey: string,
    scopeId: string,
    mode: string,
    reason: string,
    source: string,
    tenant: string,
  ): Promise<[string, number]>;
  bfKillSwitchRead(
    switchKey: string,
    windowKey: string,
    scopesKey: string,
    tripsKey: string,
    tenantsKey: string,
    windowMs: number,
    trips: number,
  ): Promise<[string[], number, number, number, string[], string[], number]>;
}

const definitions = {
  bfKillSwitchRecord: { numberOfKeys: 10, lua: RECORD_OUTCOME },
  bfKillSwitchClaimWrite: { numberOfKeys: 2, lua: CLAIM_WRITE },
  bfKillSwitchReleaseProbe: { numberOfKeys: 2, lua: RELEASE_PROBE },
  bfKillSwitchSetMode: { numberOfKeys: 3, lua: SET_MODE },
  bfKillSwitchSetScopeMode: { numberOfKeys: 2, lua: SET_SCOPE_MODE },
  bfKillSwitchRead: { numberOfKeys: 5, lua: READ_STATE },
} as const;

/** Registers the scripts on a connection (idempotent) and returns them typed. */
export function defineKillSwitchScripts(redis: RedisClient): KillSwitchScripts {
  return defineLuaCommands<KillSwitchScripts>(redis, definitions);
}

/** The figures of several windows at one instant (a variable number of keys, so EVAL directly:
 * Redis caches the script by its SHA either way). */
export async function readWindowFigures(
  redis: RedisClient,
  windows: ReadonlyArray<{ key: string; floorMs: number | null }>,
  windowMs: number,
): Promise<Array<[number, number]>> {
  if (windows.length === 0) return [];
  const reply = (await redis.eval(
    READ_WINDOWS,
    windows.length,
    ...windows.map((window) => window.key),
    windowMs,
    ...windows.map((window) => (window.floorMs === null ? '' : String(window.floorMs))),
  )) as number[];
  return windows.map((_, index) => [Number(reply[index * 2] ?? 0), Number(reply[index * 2 + 1] ?? 0)]);
}
