// Lua shared by the run's scripts (run-scripts.ts, run-scripts-recovery.ts): the vocabulary
// (lua-vocabulary.ts), the charge of a paid answer and the owed webhook of an ending run.
import { LUA_APPEND_EVENTS, LUA_HSET_JSON, LUA_IS_TERMINAL } from './lua-vocabulary.js';

/** charge(run, turn, usage JSON, cost µUSD, pending spend JSON or '') — adds a paid answer's usage
 * and cost to the run and leaves its tenant spend pending on the turn, under its own marker
 * (`tenantSpend:<marker>`: two paid answers of one turn are two entries). Everything is checked
 * before the first write. Returns {usage JSON, run cost µUSD} or an error reply. */
const LUA_CHARGE = `
local function charge(runKey, turnKey, usageJson, costArg, pendingJson)
  local raw = redis.call('HGET', runKey, 'usage')
  local usage = {}
  if raw and raw ~= '' then usage = cjson.decode(raw) end
  for class, tokens in pairs(cjson.decode(usageJson)) do usage[class] = (tonumber(usage[class]) or 0) + tokens end
  local cost = tonumber(costArg)
  if not cost or cost < 0 or cost ~= math.floor(cost) then return redis.error_reply('charge: the cost is not a whole number of micro-dollars: ' .. costArg) end
  local storedCost = redis.call('HGET', runKey, 'costMicroUsd')
  if storedCost and not string.match(storedCost, '^%d+$') then
    return redis.error_reply('charge: the stored costMicroUsd is not a whole number: ' .. storedCost)
  end
  local marker = nil
  if pendingJson ~= '' then marker = cjson.decode(pendingJson).marker end
  local encoded = cjson.encode(usage)
  redis.call('HSET', runKey, 'usage', encoded)
  local total = redis.call('HINCRBY', runKey, 'costMicroUsd', costArg)
  if marker then redis.call('HSET', turnKey, 'tenantSpend:' .. marker, pendingJson) end
  return {encoded, total}
end
`;

/** owe_webhook(run) — called by every script that ends a run, in the ending step: a run that names
 * a webhook now owes its `run.ended` delivery, recorded on its own hash (`webhookOwed`: the end's
 * status and transition time, JSON) until the delivery's job exists (docs/webhooks.md#guarantee).
 * Returns 1 when owed, 0 for a run without a webhook (one HGET, nothing written). */
const LUA_OWE_WEBHOOK = `
local function owe_webhook(runKey)
  local webhook = redis.call('HGET', runKey, 'webhook')
  if not webhook or webhook == '' then return 0 end
  local owed = cjson.encode({status = redis.call('HGET', runKey, 'status'), endedAt = redis.call('HGET', runKey, 'updatedAt') or ''})
  redis.call('HSET', runKey, 'webhookOwed', owed)
  return 1
end
`;

export const PRELUDE = LUA_IS_TERMINAL + LUA_HSET_JSON + LUA_APPEND_EVENTS + LUA_CHARGE + LUA_OWE_WEBHOOK;
