// Lua fragments generated from the domain's own definitions, so a Lua script can never disagree
// with TypeScript about which statuses are terminal (adding one changes every script with it).
import { TERMINAL_STATUSES, type RunStatus } from '../domain/run-outcomes.js';

/** A run status as a Lua string literal: scripts spell a status through this, so a status the
 * domain does not define does not compile. */
export function luaStatus(status: RunStatus): string {
  return `'${status}'`;
}

/** `is_terminal(status)`: true for the statuses of TERMINAL_STATUSES. */
export const LUA_IS_TERMINAL = `
local TERMINAL_STATUS = {${TERMINAL_STATUSES.map((status) => `[${luaStatus(status)}] = true`).join(', ')}}
local function is_terminal(status)
  return status ~= false and status ~= nil and TERMINAL_STATUS[status] == true
end
`;

/** `hset_fields(key, fields)`: HSET of every field of a decoded table of strings;
 * `hset_json(key, json)`: the same from its JSON. */
export const LUA_HSET_JSON = `
local function hset_fields(key, fields)
  local flat = {}
  for field, value in pairs(fields) do
    flat[#flat + 1] = field
    flat[#flat + 1] = value
  end
  if #flat > 0 then redis.call('HSET', key, unpack(flat)) end
end
local function hset_json(key, json)
  hset_fields(key, cjson.decode(json))
end
`;

/** `append_events(stream, from, count)`: XADD of ARGV[from .. from+count-1], each one event's JSON
 * (encoded, redacted and stamped by the engine), so events land in the step that made them true. */
export const LUA_APPEND_EVENTS = `
local function append_events(stream, from, count)
  for index = from, from + count - 1 do
    redis.call('XADD', stream, 'MAXLEN', '~', '10000', '*', 'data', ARGV[index])
  end
end
`;
