// The Lua of the shared model-call limiter (model-rate-limiter.ts): token buckets for requests,
// input tokens and output tokens per minute, one set per (API key identity, model), the
// reservations made from them, and the interactive calls booked into them. Every step is one
// script, so any number of worker processes reserve and settle against one consistent state.
//
// The buckets behave like the API's own (docs api/rate-limits): "We use the token bucket
// algorithm", capacity "continuously replenished up to your maximum limit, rather than being reset
// at fixed intervals"; the output estimate is max_tokens at the start of a call, "adjusted at the
// end of the request to reflect the actual number of output tokens used" — here by `settle`.
//
// Keys (one hash tag: every key of one limiter is in one Redis Cluster slot):
//   KEYS[1] buckets — hash: for d in r, i, o (requests, input, output tokens): <d>:cap (per
//           minute; 0 = unknown, not enforced), <d>:level (what is there now; below zero while
//           booked calls are owed capacity), <d>:src (seed | api: where cap comes from), <d>:credit
//           (everything ever added to the bucket — refill and give-backs — minus what the API's
//           headers showed missing: only grows between corrections); and `at` (last refill, ms).
//   KEYS[2] reservations — hash: call id -> JSON {s: 'a' (admitted: the call may be under way) |
//           'b' (booked: an interactive call told to wait, its need already taken from the
//           buckets), r, i, o (the amounts), p (priority), and for a booking: until (when the refill
//           alone repays it) and target {r, i, o} (the credit at which it is repaid)}.
//   KEYS[3] expiry — zset: call id -> when its reservation expires (ms).
//   KEYS[4] the calling run's cache chain — string "estimate|until|scope" (until: the prompt
//           cache's lifetime from the answer, on the limiter's clock; PX the same, to clean up):
//           the prompt estimate of the run's last answered call that read or wrote the prompt
//           cache, and what its cached prefix depended on (tools, system, tool_choice, thinking).
//           While it holds, the next call of the run with the same scope is expected to read that
//           prefix from the cache, and cache reads do not count toward the input limit (docs
//           api/rate-limits: "cache_read_input_tokens are not"): only the part beyond it is
//           reserved. A cache that misses anyway costs a settle that takes the difference.
//   KEYS[5] the shared prefix of a call's scope — string: until when (as above), set when an
//           answer read from the cache, so the tools and system prompt every run of a phase sends
//           alike are in it. A call without a chain then reserves only what lies beyond them.
import { LUA_REDIS_NOW_MS } from '../redis/lua-redis-time.js';

/** Shared by both scripts: clock, bucket state, refill, give-backs, sweep of expired reservations. */
const PRELUDE =
  LUA_REDIS_NOW_MS +
  `
local MINUTE = 60000
local DIMS = {'r', 'i', 'o'}

local function clock(given)
  local value = tonumber(given)
  if value and value >= 0 then return value end
  return redis_now_ms()
end

-- Adds to a bucket, never above its capacity; what was really added is credited.
local function add(bucket, amount)
  if bucket.cap <= 0 or amount == 0 then return end
  if amount < 0 then bucket.level = bucket.level + amount return end
  local level = math.min(bucket.cap, bucket.level + amount)
  if level > bucket.level then bucket.credit = bucket.credit + (level - bucket.level) end
  bucket.level = level
end

-- The buckets, refilled to now. A limit learned from the API's headers (src = api) wins over the
-- configured seed; a seed that changed (a redeploy) applies at once, cutting a fuller bucket.
local function load(now, seeds)
  local raw = redis.call('HGETALL', KEYS[1])
  local stored = {}
  for index = 1, #raw, 2 do stored[raw[index]] = raw[index + 1] end
  local state = {}
  local at = tonumber(stored['at'] or '') or now
  for _, d in ipairs(DIMS) do
    local bucket = {
      cap = tonumber(stored[d .. ':cap'] or '0') or 0,
      src = stored[d .. ':src'] or 'seed',
      credit = tonumber(stored[d .. ':credit'] or '0') or 0,
    }
    local level = tonumber(stored[d .. ':level'] or '')
    if bucket.src ~= 'api' and bucket.cap ~= seeds[d] then
      bucket.cap = seeds[d]
      if level then level = math.min(level, bucket.cap) end
    end
    bucket.level = level or bucket.cap
    add(bucket, math.max(0, now - at) * bucket.cap / MINUTE)
    state[d] = bucket
  end
  return state
end

local function save(state, now, lifetime)
  local fields = {'at', now}
  for _, d in ipairs(DIMS) do
    local bucket = state[d]
    for _, field in ipairs({{'cap', bucket.cap}, {'level', tostring(bucket.level)}, {'src', bucket.src}, {'credit', tostring(bucket.credit)}}) do
      table.insert(fields, d .. ':' .. field[1])
      table.insert(fields, field[2])
    end
  end
  redis.call('HSET', KEYS[1], unpack(fields))
  for index = 1, 3 do redis.call('PEXPIRE', KEYS[index], lifetime) end
end

local function give(state, amounts)
  for _, d in ipairs(DIMS) do add(state[d], amounts[d]) end
end

-- An expired reservation. Booked: the call never went out, everything comes back. Admitted: its
-- worker died without settling; the call most likely went out and ended with the worker, so the
-- request and the input stay spent and the output estimate comes back (the API gives back unused
-- output when a call ends). A wrong guess is corrected by the next answer's headers.
local function expire(state, record)
  if record.s == 'b' then give(state, {r = record.r, i = record.i, o = record.o})
  else give(state, {r = 0, i = 0, o = record.o}) end
end

local function sweep(state, now)
  local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 100)
  for _, id in ipairs(expired) do
    local raw = redis.call('HGET', KEYS[2], id)
    if raw then
      expire(state, cjson.decode(raw))
      redis.call('HDEL', KEYS[2], id)
    end
    redis.call('ZREM', KEYS[3], id)
  end
  return #expired
end

local function levels(state)
  local out = {}
  for _, d in ipairs(DIMS) do out[d] = {cap = state[d].cap, level = state[d].level, src = state[d].src} end
  return out
end
`;

/**
 * bfAdmissionReserve — before a call: go, or wait N ms.
 * KEYS as above.
 * ARGV[1] now (ms; negative = Redis TIME), ARGV[2] call id, ARGV[3] priority (interactive |
 * batch), ARGV[4..6] need: requests, input tokens, output tokens (max_tokens), ARGV[7..9] seeds:
 * requests, input, output per minute (0 = unknown), ARGV[10] batch headroom (0..1 of capacity),
 * ARGV[11] reservation lifetime (ms: longer than the slowest call), ARGV[12] how long a booked
 * slot is held for a call that comes back late (ms), ARGV[13] key lifetime (ms), ARGV[14] the
 * call's cache scope ('' = none), ARGV[15] the least input a call expected to hit the cache
 * reserves, ARGV[16] the estimate of the call's shared prefix (tools and system), ARGV[17] the
 * longest a booked call stays away before it looks again whether its slot came early (ms).
 * Returns JSON {go, waitMs, limit ('' | r | i | o | booked), booked, swept, reserved, buckets}.
 *
 * The rule: an interactive call is admitted when every bucket holds its need; otherwise its need
 * is taken at once (the bucket goes into debt) and it is booked: first come, first served, it goes
 * once the bucket has been credited with its debt — by the refill, or sooner by what calls admitted
 * before it give back when they settle (reservations are estimates above what the API counts). So
 * that a give-back is used, a booked call looks again before the refill alone would repay it. A
 * batch call is admitted only if every bucket keeps `headroom` of its capacity after it (so never
 * while an interactive call is owed); it never books. A need above a bucket's whole capacity counts
 * as the capacity (admitted at a full bucket; the API judges it). An admitted reservation found
 * under the same call id is an attempt that died before settling: it is expired first.
 */
export const RESERVE_LUA = `${PRELUDE}
local now = clock(ARGV[1])
local id = ARGV[2]
local priority = ARGV[3]
local need = {r = tonumber(ARGV[4]), i = tonumber(ARGV[5]), o = tonumber(ARGV[6])}
local seeds = {r = tonumber(ARGV[7]), i = tonumber(ARGV[8]), o = tonumber(ARGV[9])}
local headroom = tonumber(ARGV[10])
local lifetime, grace, keyLifetime = tonumber(ARGV[11]), tonumber(ARGV[12]), tonumber(ARGV[13])
local scope, floor, sharedPrefix, recheck = ARGV[14], tonumber(ARGV[15]), tonumber(ARGV[16]), tonumber(ARGV[17])
local state = load(now, seeds)
local swept = sweep(state, now)

-- How long a booked call stays away: until the refill alone repays it, or half that when it is
-- long, to look again whether give-backs repaid it sooner.
local function away(remaining)
  if remaining <= recheck then return remaining end
  return math.max(recheck, math.ceil(remaining / 2))
end

local existing = redis.call('HGET', KEYS[2], id)
if existing then
  local record = cjson.decode(existing)
  if record.s == 'b' then
    local amounts = {r = record.r, i = record.i, o = record.o}
    -- Repaid: by the clock (a few ms of skew between worker and Redis allowed), or by credit.
    local repaid = now + 50 >= record['until']
    if not repaid then
      repaid = true
      for _, d in ipairs(DIMS) do
        if state[d].cap > 0 and state[d].credit < record.target[d] then repaid = false end
      end
    end
    if repaid then
      redis.call('HSET', KEYS[2], id, cjson.encode({s = 'a', r = record.r, i = record.i, o = record.o, p = record.p}))
      redis.call('ZADD', KEYS[3], now + lifetime, id)
      save(state, now, keyLifetime)
      return cjson.encode({go = true, waitMs = 0, limit = 'booked', booked = false, swept = swept, reserved = amounts, buckets = levels(state)})
    end
    local remaining = record['until'] - now
    for _, d in ipairs(DIMS) do
      if state[d].cap > 0 then remaining = math.min(remaining, math.max(1, math.ceil((record.target[d] - state[d].credit) * MINUTE / state[d].cap))) end
    end
    save(state, now, keyLifetime)
    return cjson.encode({go = false, waitMs = away(remaining), limit = 'booked', booked = true, swept = swept, reserved = amounts, buckets = levels(state)})
  end
  expire(state, record)
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
end

-- The run's previous call left its prefix in the prompt cache: only what lies beyond it counts.
-- Else, the tools and system prompt every run of the phase sends alike may be there.
if scope ~= '' then
  local cached = 0
  local chain = redis.call('GET', KEYS[4])
  if chain then
    local previous, untilMs, previousScope = string.match(chain, '^(%d+)|(%d+)|(.*)$')
    if previousScope == scope and tonumber(untilMs) > now then cached = tonumber(previous) end
  end
  local shared = tonumber(redis.call('GET', KEYS[5]) or '')
  if cached == 0 and shared and shared > now then cached = sharedPrefix end
  if cached > 0 then need.i = math.max(math.min(need.i, floor), need.i - cached) end
end

local batch = priority == 'batch'
local waitMs, limit = 0, ''
for _, d in ipairs(DIMS) do
  local cap = state[d].cap
  if cap > 0 then
    local effective = math.min(need[d], cap)
    local keep = 0
    if batch then keep = math.min(headroom * cap, cap - effective) end
    local short = effective + keep - state[d].level
    if short > 0 then
      local wait = math.ceil(short * MINUTE / cap)
      if wait > waitMs then waitMs, limit = wait, d end
    end
  end
end

if waitMs > 0 then
  if batch then
    save(state, now, keyLifetime)
    return cjson.encode({go = false, waitMs = waitMs, limit = limit, booked = false, swept = swept, reserved = need, buckets = levels(state)})
  end
  -- The booking: repaid once the bucket is credited with what it is short now (a need above the
  -- whole capacity: with what brings it to full), whatever is taken after it.
  local target = {}
  for _, d in ipairs(DIMS) do
    local bucket = state[d]
    target[d] = bucket.credit
    if bucket.cap > 0 then target[d] = bucket.credit + math.max(0, math.min(need[d], bucket.cap) - bucket.level) end
  end
  give(state, {r = -need.r, i = -need.i, o = -need.o})
  redis.call('HSET', KEYS[2], id, cjson.encode({s = 'b', r = need.r, i = need.i, o = need.o, p = priority, ['until'] = now + waitMs, target = target}))
  redis.call('ZADD', KEYS[3], now + waitMs + grace, id)
  save(state, now, keyLifetime)
  return cjson.encode({go = false, waitMs = away(waitMs), limit = limit, booked = true, swept = swept, reserved = need, buckets = levels(state)})
end

give(state, {r = -need.r, i = -need.i, o = -need.o})
redis.call('HSET', KEYS[2], id, cjson.encode({s = 'a', r = need.r, i = need.i, o = need.o, p = priority}))
redis.call('ZADD', KEYS[3], now + lifetime, id)
save(state, now, keyLifetime)
return cjson.encode({go = true, waitMs = 0, limit = '', booked = false, swept = swept, reserved = need, buckets = levels(state)})
`;

/**
 * bfAdmissionSettle — after a call (or instead of one): give back what was reserved beyond what
 * the API counted, then correct the buckets from the answer's anthropic-ratelimit-* headers.
 * KEYS as above.
 * ARGV[1] now, ARGV[2] call id, ARGV[3..5] what the caller reserved (requests, input, output:
 * used when the reservation has expired in the meantime), ARGV[6..8] what the API counted,
 * ARGV[9..11] seeds, ARGV[12..17] headers: limit and remaining of requests, input tokens, output
 * tokens (-1 = absent), ARGV[18] age of the headers (ms since the API wrote them), ARGV[19] output
 * tokens the API gives back after those headers were written (max_tokens − output of a 200 whose
 * headers were written at admission; 0 otherwise), ARGV[20] key lifetime (ms), ARGV[21] the run's
 * cache chain after this call ("estimate|scope" to set, '' to clear, '-' to leave), ARGV[22] its
 * lifetime (ms: the prompt cache's), ARGV[23] 1 when the answer read from the cache (its shared
 * prefix is there for the cache's lifetime), else 0.
 * Returns JSON {settled ('open' | 'expired'), corrected (buckets lowered by the headers), swept, buckets}.
 *
 * Headers only ever lower a bucket (never above what the API says remains, refilled since), and
 * set its capacity: the remaining count is older than our own state by the age of the answer, and
 * calls we admitted since are not in it, so raising a bucket to it could admit twice. What a
 * correction takes is taken from the credit too: booked calls wait for it like for any debt.
 */
export const SETTLE_LUA = `${PRELUDE}
local now = clock(ARGV[1])
local id = ARGV[2]
local reserved = {r = tonumber(ARGV[3]), i = tonumber(ARGV[4]), o = tonumber(ARGV[5])}
local used = {r = tonumber(ARGV[6]), i = tonumber(ARGV[7]), o = tonumber(ARGV[8])}
local seeds = {r = tonumber(ARGV[9]), i = tonumber(ARGV[10]), o = tonumber(ARGV[11])}
local headers = {
  r = {limit = tonumber(ARGV[12]), remaining = tonumber(ARGV[13])},
  i = {limit = tonumber(ARGV[14]), remaining = tonumber(ARGV[15])},
  o = {limit = tonumber(ARGV[16]), remaining = tonumber(ARGV[17])},
}
local age, outputBack, keyLifetime = math.max(0, tonumber(ARGV[18])), tonumber(ARGV[19]), tonumber(ARGV[20])
local chain, chainLifetime = ARGV[21], tonumber(ARGV[22])
local state = load(now, seeds)
local swept = sweep(state, now)

if chain == '' then redis.call('DEL', KEYS[4])
elseif chain ~= '-' then
  local estimate, chainScope = string.match(chain, '^(%d+)|(.*)$')
  redis.call('SET', KEYS[4], estimate .. '|' .. (now + chainLifetime) .. '|' .. chainScope, 'PX', chainLifetime)
end
if ARGV[23] == '1' then redis.call('SET', KEYS[5], now + chainLifetime, 'PX', chainLifetime) end

local settled = 'expired'
local raw = redis.call('HGET', KEYS[2], id)
if raw then
  local record = cjson.decode(raw)
  give(state, {r = record.r - used.r, i = record.i - used.i, o = record.o - used.o})
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
  settled = 'open'
else
  -- Expired before this settle: the sweep took the request and input as spent and gave the
  -- output back; what the API really counted replaces that guess.
  give(state, {r = reserved.r - used.r, i = reserved.i - used.i, o = -used.o})
end

local corrected = 0
for _, d in ipairs(DIMS) do
  local bucket = state[d]
  local limit, remaining = headers[d].limit, headers[d].remaining
  if limit and limit > 0 then
    local before = bucket.level
    if bucket.cap ~= limit or bucket.src ~= 'api' then
      if bucket.cap > 0 then bucket.level = math.min(bucket.level, limit) else bucket.level, before = limit, limit end
      bucket.cap = limit
      bucket.src = 'api'
    end
    if remaining and remaining >= 0 then
      local implied = remaining + limit * age / MINUTE
      if d == 'o' then implied = implied + outputBack end
      implied = math.min(limit, implied)
      if implied < bucket.level then
        bucket.level = implied
        corrected = corrected + 1
      end
    end
    if bucket.level < before then bucket.credit = bucket.credit - (before - bucket.level) end
  end
end
save(state, now, keyLifetime)
return cjson.encode({settled = settled, corrected = corrected, swept = swept, buckets = levels(state)})
`;
