// Lua shared by the kill switch's claim (src/safety/kill-switch-scripts.ts), the write fence
// (effect-scripts.ts) and the upstream system (systems/upstream-system.ts): which upstream scopes a
// run's write depends on, and how the run's upstreams zset (kill-switch-keys.ts runUpstreamsKey)
// is kept. The claim and the fence run on every write, so their
// work is bounded by the smaller of two small things — the upstream scopes that are tripped (the
// scopes hash holds an entry only for a scope that tripped, is half-open, or was reset within the
// window) and the upstreams the run read within the window, itself capped — never by how many
// hosts a run has read over its life.

/** Distinct upstreams a run's zset tracks one by one within a window; past it the run depends on
 * every upstream (RUN_READ_EVERY_UPSTREAM) until a window after its last read. A build reads a
 * handful of hosts; a run reading hundreds in a minute is treated on the safe side, and the work
 * of its writes' checks stays bounded. */
export const MAX_RUN_UPSTREAMS = 256;

/** The member that stands for "every upstream" in a run's upstreams zset (no scope id is `*`). */
export const RUN_READ_EVERY_UPSTREAM = '*';

/**
 * `note_run_upstream(run_upstreams_key, upstream_id, until_ms, now, ttl_ms)`: the run depends on
 *   the upstream until `until_ms`. Prunes lapsed entries; once the run has read more than
 *   MAX_RUN_UPSTREAMS distinct upstreams within a window, the zset collapses into the one member
 *   RUN_READ_EVERY_UPSTREAM, whose score covers every entry it replaced (it is the latest).
 * `each_run_upstream_scope(scopes_key, run_upstreams_key, now, visit)`: calls `visit(id, raw)` for
 *   every upstream scope entry of the scopes hash the run depends on at `now` (its score >= now),
 *   and returns the first truthy value `visit` returns (nil when none). It walks whichever is
 *   smaller — the run's live upstreams (HGET each) or the scopes hash's entries (ZSCORE each) —
 *   and every upstream entry when the run read from every upstream.
 * `each_listed_upstream_scope(scopes_key, listed, visit)`: the same over a list of upstream ids
 *   read from the run's upstreams zset in an earlier step (`run_live_upstreams`: the zset is the
 *   engine's, in the run's slot; the scopes hash is the switch's), again walking the smaller side:
 *   `{'*'}` stands for every upstream.
 * `run_live_upstreams(run_upstreams_key, now)`: the upstreams the run depends on at `now` (or `{'*'}`).
 */
export const LUA_RUN_UPSTREAM_SCOPES = `
local function note_run_upstream(run_upstreams_key, upstream_id, until_ms, now, ttl_ms)
  redis.call('ZREMRANGEBYSCORE', run_upstreams_key, '-inf', '(' .. now)
  local every = redis.call('ZSCORE', run_upstreams_key, '${RUN_READ_EVERY_UPSTREAM}')
  if not every and not redis.call('ZSCORE', run_upstreams_key, upstream_id)
    and redis.call('ZCARD', run_upstreams_key) >= ${MAX_RUN_UPSTREAMS} then
    every = true
  end
  if every then
    -- The one member must last as long as the latest entry it replaces.
    local latest = redis.call('ZRANGE', run_upstreams_key, -1, -1, 'WITHSCORES')
    if latest[2] and tonumber(latest[2]) > until_ms then until_ms = tonumber(latest[2]) end
    redis.call('DEL', run_upstreams_key)
    redis.call('ZADD', run_upstreams_key, until_ms, '${RUN_READ_EVERY_UPSTREAM}')
  else
    redis.call('ZADD', run_upstreams_key, until_ms, upstream_id)
  end
  redis.call('PEXPIRE', run_upstreams_key, ttl_ms)
end
-- The upstream scopes among ids, in order, that the scopes hash holds.
local function each_named_scope(scopes_key, ids, visit)
  for _, id in ipairs(ids) do
    local raw = redis.call('HGET', scopes_key, id)
    if raw then
      local result = visit(id, raw)
      if result then return result end
    end
  end
  return nil
end
-- Every upstream scope the hash holds (depends, when given, keeps only the ids it accepts).
local function each_held_upstream_scope(scopes_key, visit, depends)
  for _, id in ipairs(redis.call('HKEYS', scopes_key)) do
    if string.sub(id, 1, 9) == 'upstream:' and (depends == nil or depends(id)) then
      local result = visit(id, redis.call('HGET', scopes_key, id))
      if result then return result end
    end
  end
  return nil
end
local function each_run_upstream_scope(scopes_key, run_upstreams_key, now, visit)
  local every_until = tonumber(redis.call('ZSCORE', run_upstreams_key, '${RUN_READ_EVERY_UPSTREAM}') or '')
  if every_until ~= nil and every_until >= now then return each_held_upstream_scope(scopes_key, visit, nil) end
  -- Whichever side is smaller is walked: the run's live upstreams, or the scopes held.
  if redis.call('ZCOUNT', run_upstreams_key, now, '+inf') <= redis.call('HLEN', scopes_key) then
    return each_named_scope(scopes_key, redis.call('ZRANGEBYSCORE', run_upstreams_key, now, '+inf'), visit)
  end
  return each_held_upstream_scope(scopes_key, visit, function(id)
    local until_ms = tonumber(redis.call('ZSCORE', run_upstreams_key, id) or '')
    return until_ms ~= nil and until_ms >= now
  end)
end
local function each_listed_upstream_scope(scopes_key, listed, visit)
  local named = {}
  for _, id in ipairs(listed) do
    if id == '${RUN_READ_EVERY_UPSTREAM}' then return each_held_upstream_scope(scopes_key, visit, nil) end
    named[id] = true
  end
  -- Whichever side is smaller is walked: the listed upstreams, or the scopes held.
  if #listed <= redis.call('HLEN', scopes_key) then return each_named_scope(scopes_key, listed, visit) end
  return each_held_upstream_scope(scopes_key, visit, function(id) return named[id] == true end)
end
local function run_live_upstreams(run_upstreams_key, now)
  local every_until = tonumber(redis.call('ZSCORE', run_upstreams_key, '${RUN_READ_EVERY_UPSTREAM}') or '')
  if every_until ~= nil and every_until >= now then return {'${RUN_READ_EVERY_UPSTREAM}'} end
  return redis.call('ZRANGEBYSCORE', run_upstreams_key, now, '+inf')
end
`;
