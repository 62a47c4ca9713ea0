// Redis's own clock, in ms, for Lua scripts: one definition for every script that stamps or
// compares times, so every process agrees whatever its local clock (TIME in a script is allowed
// since Redis 5 with effects replication, the only mode from Redis 7).
export const LUA_REDIS_NOW_MS = `
local function redis_now_ms()
  local clock = redis.call('TIME')
  return tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
end
`;
