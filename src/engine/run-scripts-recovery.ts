// The run's scripts for runs that stalled or ended (run-scripts.ts registers them with the rest):
// the reaper's inspection and resumption of a turn no job carries, its end of a run that did not
// change meanwhile, and the expiry of an archived run's keys.
import { luaStatus } from './lua-vocabulary.js';
import { PRELUDE } from './run-scripts-prelude.js';

/**
 * bfInspectTurn — what the reaper needs to judge a run that made no transition for a while: the
 * run's status and last transition, the turn's claim and recoveries, and the calls the previous
 * turn handed out with whether each has its result.
 * KEYS[1] run hash, KEYS[2] turn hash, KEYS[3] previous turn hash, KEYS[4] results hash (the ledger).
 * ARGV[1] the turn the caller found the run at.
 * Returns {-1} when the run is missing, {0, status} when it is no longer at that turn (or has no
 * turn field to compare), else {1, status, updatedAt, inputCommitted, claimedBy, recoveries,
 * previous outcome JSON or '', {1|0 recorded, for each call of the previous outcome's dispatch},
 * the run's trace context JSON or ''}.
 */
export const INSPECT_TURN = `
local run = redis.call('HMGET', KEYS[1], 'status', 'turn', 'updatedAt', 'traceContext')
if not run[1] then return {-1} end
if run[2] ~= ARGV[1] then return {0, run[1]} end
local turn = redis.call('HMGET', KEYS[2], 'inputCommitted', 'claimedBy', 'recoveries')
local previous = redis.call('HGET', KEYS[3], 'outcome') or ''
local recorded = {}
if previous ~= '' then
  local dispatch = cjson.decode(previous).dispatch
  if type(dispatch) == 'table' then
    for _, call in ipairs(dispatch) do recorded[#recorded + 1] = redis.call('HEXISTS', KEYS[4], tostring(call.toolUseId)) end
  end
end
return {1, run[1], run[3] or '', turn[1] or '', turn[2] or '', turn[3] or '0', previous, recorded, run[4] or ''}
`;

/**
 * bfResumeTurn — the reaper hands a turn whose jobs are all lost or dead to a new job, once: only
 * when the run is still where the reaper saw it (same turn, same last transition, same number of
 * recoveries), so a run that moved on meanwhile, or a second reaper, changes nothing. Counts the
 * recovery on the turn, moves the turn's claim (if it was claimed) to the new job — the old owner
 * is dead, and a claim that stayed with it would turn the new job away — and stamps the run's
 * updatedAt, so the next look waits the grace again.
 * KEYS[1] run hash, KEYS[2] turn hash, KEYS[3] event stream.
 * ARGV[1] turn, ARGV[2] updatedAt seen, ARGV[3] recoveries seen, ARGV[4] the new job id,
 * ARGV[5] ISO time, ARGV[6] the run-resume event.
 * Returns 1 when resumed, 0 when the run changed since it was seen, -2 when it is terminal or missing.
 */
export const RESUME_TURN =
  PRELUDE +
  `
local status = redis.call('HGET', KEYS[1], 'status')
if not status or is_terminal(status) then return -2 end
if status == ${luaStatus('waiting_for_input')} then return 0 end
if redis.call('HGET', KEYS[1], 'turn') ~= ARGV[1] or (redis.call('HGET', KEYS[1], 'updatedAt') or '') ~= ARGV[2] then return 0 end
if (redis.call('HGET', KEYS[2], 'recoveries') or '0') ~= ARGV[3] then return 0 end
redis.call('HINCRBY', KEYS[2], 'recoveries', 1)
if redis.call('HEXISTS', KEYS[2], 'claimedBy') == 1 then redis.call('HSET', KEYS[2], 'claimedBy', ARGV[4]) end
redis.call('HSET', KEYS[1], 'updatedAt', ARGV[5])
append_events(KEYS[3], 6, 1)
return 1
`;

/**
 * bfEndRunIfUnchanged — bfEndRun, but only when the run is still at the turn and last transition
 * the caller saw (the reaper's end of a stalled run must not end one that moved on meanwhile).
 * KEYS[1] run hash, KEYS[2] event stream. ARGV[1] turn, ARGV[2] updatedAt seen, ARGV[3] JSON
 * fields, ARGV[4] n events, ARGV[5..] events.
 * Returns {1, tenant, 1 when the end owes a webhook delivery, the run's agent} when ended now, {0}
 * when the run changed, {-2} when terminal or missing.
 */
export const END_RUN_IF_UNCHANGED =
  PRELUDE +
  `
local status = redis.call('HGET', KEYS[1], 'status')
if not status or is_terminal(status) then return {-2} end
if status == ${luaStatus('waiting_for_input')} then return {0} end
if redis.call('HGET', KEYS[1], 'turn') ~= ARGV[1] or (redis.call('HGET', KEYS[1], 'updatedAt') or '') ~= ARGV[2] then return {0} end
hset_json(KEYS[1], ARGV[3])
append_events(KEYS[2], 5, tonumber(ARGV[4]))
return {1, redis.call('HGET', KEYS[1], 'tenant') or '', owe_webhook(KEYS[1]), redis.call('HGET', KEYS[1], 'agent') or ''}
`;

/**
 * bfExpireArchivedRun — once a run's history is in PostgreSQL, every key of the run expires after
 * the retention, and its record says when it was archived. Only a run that ended: a live run's keys
 * must never expire under it. KEYS[1] run hash, KEYS[2..] the run's other keys (all share the run's
 * hash tag: one slot). ARGV[1] retention ms, ARGV[2] archivedAt (ISO).
 * Returns {1} done, {-1} no such run, {-2} the run has not ended.
 */
export const EXPIRE_ARCHIVED_RUN =
  PRELUDE +
  `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {-1} end
if not is_terminal(status) then return {-2} end
redis.call('HSET', KEYS[1], 'archivedAt', ARGV[2])
for index = 1, #KEYS do redis.call('PEXPIRE', KEYS[index], ARGV[1]) end
return {1}
`;
