// bfReopenRun: the one transition out of a terminal state. `POST /v1/runs/:id/resume` takes a run
// that failed for a reason outside it (resumable-run-errors.ts) back to `running` at the turn that
// failed, in one step, so two resumes at once reopen it once and a late worker cannot race it.
import type { RedisClient } from '../redis/redis-connection.js';
import { defineLuaCommands } from '../redis/define-lua-commands.js';
import { LUA_APPEND_EVENTS, luaStatus } from './lua-vocabulary.js';

/**
 * bfReopenRun — a `failed` run whose error code is resumable goes back to `running` at its turn.
 * KEYS[1] run hash, KEYS[2] the failed turn's hash, KEYS[3] event stream, KEYS[4..] every other key
 * of the run (all share its hash tag: one slot).
 * ARGV[1] the turn the caller read, ARGV[2] the turn's `reopens` count the caller read ('0' when
 * none), ARGV[3] the job that will carry the turn, ARGV[4] ISO time, ARGV[5] the run-reopen event,
 * ARGV[6..] the resumable error codes.
 * Clears the error and result; drops `archivedAt` and every key's TTL (an archived run's keys were
 * set to expire: a run that runs again must not lose them); resets the turn's overload clock and
 * rate-limit cycles (the patience counts from now, not from the episode that ended the run); counts
 * the reopen on the turn and gives its claim to the new job, so the new job commits the turn's
 * input (when the failed one had not) or goes on from it, and the old job, were it to come back,
 * finds the turn owned by another; stamps updatedAt, so the reaper waits a whole grace.
 * Returns {1, tenant} reopened, {-1} no such run, {0, status} the run is not failed (a second resume
 * finds it running), {-3, error code} the code is not resumable, {-4} the run changed since it was
 * read (another turn, another reopen).
 */
const REOPEN_RUN =
  LUA_APPEND_EVENTS +
  `
local run = redis.call('HMGET', KEYS[1], 'status', 'turn', 'error', 'tenant')
if not run[1] then return {-1} end
if run[1] ~= ${luaStatus('failed')} then return {0, run[1]} end
local code = ''
if run[3] and run[3] ~= '' then
  local ok, decoded = pcall(cjson.decode, run[3])
  if ok and type(decoded) == 'table' and type(decoded.code) == 'string' then code = decoded.code end
end
local resumable = false
for index = 6, #ARGV do
  if ARGV[index] == code then resumable = true end
end
if not resumable then return {-3, code} end
if (run[2] or '0') ~= ARGV[1] then return {-4} end
if (redis.call('HGET', KEYS[2], 'reopens') or '0') ~= ARGV[2] then return {-4} end
redis.call('HSET', KEYS[1], 'status', ${luaStatus('running')}, 'error', '', 'result', '', 'updatedAt', ARGV[4])
redis.call('HDEL', KEYS[1], 'archivedAt')
redis.call('HDEL', KEYS[2], 'overloadSince', 'rateLimitCycles')
redis.call('HINCRBY', KEYS[2], 'reopens', 1)
redis.call('HSET', KEYS[2], 'claimedBy', ARGV[3])
for index = 1, #KEYS do redis.call('PERSIST', KEYS[index]) end
append_events(KEYS[3], 5, 1)
return {1, run[4] or ''}
`;

export type ReopenRunReply = [1, string] | [-1] | [0, string] | [-3, string] | [-4];

interface ReopenRunCommands {
  /** KEYS count first (a variable number of keys), then the keys, then ARGV. */
  bfReopenRun(...keysThenArgs: Array<string | number>): Promise<ReopenRunReply>;
}

/** Registers bfReopenRun on the connection (idempotent). */
export function defineReopenRunScript(redis: RedisClient): ReopenRunCommands {
  return defineLuaCommands<ReopenRunCommands>(redis, { bfReopenRun: { lua: REOPEN_RUN } });
}
