// The Lua scripts behind every transition of a run (src/engine/run-engine.ts calls them; nothing
// else does). Each step that must happen once is one script, and the events that describe a step
// are appended by the same script, so the stream never says something the state does not (and a
// step costs one round trip). All keys of one run share its hash tag (keys.ts): every script here
// is slot-safe on Redis Cluster. Registered with ioredis defineCommand: EVALSHA after the first call.
// The Lua they share is run-scripts-prelude.ts; the scripts for stalled and archived runs are
// run-scripts-recovery.ts (registered here with the rest).
import type { RedisClient } from '../redis/redis-connection.js';
import { defineLuaCommands } from '../redis/define-lua-commands.js';
import { luaStatus } from './lua-vocabulary.js';
import { PRELUDE } from './run-scripts-prelude.js';
import { END_RUN_IF_UNCHANGED, EXPIRE_ARCHIVED_RUN, INSPECT_TURN, RESUME_TURN } from './run-scripts-recovery.js';
import { LUA_REDIS_NOW_MS } from '../redis/lua-redis-time.js';
import { LUA_RUN_UPSTREAM_SCOPES } from './run-upstream-scopes-lua.js';

/**
 * bfChargeCall — a call that failed after its stream started was still paid for: its usage and
 * cost go to the run (ended or not) and its spend is left pending on the turn for the tenant.
 * KEYS[1] run hash, KEYS[2] turn hash. ARGV[1] usage JSON, ARGV[2] cost µUSD, ARGV[3] pending spend JSON.
 * Returns {1, tenant}, {-1} when the run is missing.
 */
const CHARGE_CALL =
  PRELUDE +
  `
if not redis.call('HGET', KEYS[1], 'status') then return {-1} end
local charged = charge(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3])
if charged.err then return charged end
return {1, redis.call('HGET', KEYS[1], 'tenant') or ''}
`;

/**
 * bfLoadTurn — everything a model turn needs to decide, in one read.
 * KEYS[1] run hash, KEYS[2] turn hash, KEYS[3] previous turn hash, KEYS[4] transcript list,
 * KEYS[5] results hash (the ledger), KEYS[6] trail list.
 * ARGV[1] first transcript index to return (-1: none; the engine keeps the rest in its cache).
 * Returns {run fields, turn fields, previous outcome JSON or '', {id, result JSON or ''} for each
 * tool_use id the previous outcome waits for, transcript length, transcript from ARGV[1], trail}.
 */
const LOAD_TURN = `
local run = redis.call('HGETALL', KEYS[1])
local turn = redis.call('HGETALL', KEYS[2])
local previous = redis.call('HGET', KEYS[3], 'outcome') or ''
local results = {}
if previous ~= '' then
  local outcome = cjson.decode(previous)
  local nextInput = outcome.nextInput
  if type(nextInput) == 'table' and nextInput.kind == 'tool_results' then
    for _, id in ipairs(nextInput.toolUseIds) do
      results[#results + 1] = id
      results[#results + 1] = redis.call('HGET', KEYS[5], id) or ''
    end
  end
end
local length = redis.call('LLEN', KEYS[4])
local from = tonumber(ARGV[1])
local tail = {}
if from >= 0 and from < length then tail = redis.call('LRANGE', KEYS[4], from, -1) end
return {run, turn, previous, results, length, tail, redis.call('LRANGE', KEYS[6], 0, -1)}
`;

/**
 * bfStartTurn — commits the turn's user input once and claims the turn for one job.
 * KEYS[1] run hash, KEYS[2] turn hash, KEYS[3] transcript list, KEYS[4] event stream.
 * ARGV[1] JSON run fields set with the input, ARGV[2] the claiming job id, ARGV[3] n events,
 * ARGV[4 .. 3+n] events, then the messages to append, each already JSON (appended as given:
 * re-encoding through cjson would turn [] into {}).
 * Returns {1 committed now | 0 committed before, the turn's owner, transcript length},
 * {-1} when the run does not exist, {-2} when it is terminal (nothing written).
 */
const START_TURN =
  PRELUDE +
  `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {-1} end
if is_terminal(status) then return {-2} end
local committed = 0
if redis.call('HEXISTS', KEYS[2], 'inputCommitted') == 0 then
  local count = tonumber(ARGV[3])
  for index = 4 + count, #ARGV do redis.call('RPUSH', KEYS[3], ARGV[index]) end
  hset_json(KEYS[1], ARGV[1])
  redis.call('HSET', KEYS[2], 'inputCommitted', '1', 'transcriptLength', redis.call('LLEN', KEYS[3]))
  append_events(KEYS[4], 4, count)
  committed = 1
end
redis.call('HSETNX', KEYS[2], 'claimedBy', ARGV[2])
return {committed, redis.call('HGET', KEYS[2], 'claimedBy'), redis.call('LLEN', KEYS[3])}
`;

/**
 * bfCommitAnswer — the model's answer and what the turn decided from it, once: the response,
 * usage, the assistant message, run fields, the outcome, the answers to refused calls, the events
 * of all of it and, when the decision ends the run, its end.
 * KEYS[1] run hash, KEYS[2] turn hash, KEYS[3] transcript list, KEYS[4] event stream,
 * KEYS[5] results hash, KEYS[6] trail list.
 * ARGV[1] the answer's summary (JSON: id, stop reason, usage — its content is the assistant
 * message), ARGV[2] usage to add (JSON object of numbers), ARGV[3] assistant message JSON or '',
 * ARGV[4] 'append' | 'replace_last' (a pause_turn continuation extends the last assistant
 * message), ARGV[5] JSON run fields, ARGV[6] outcome JSON, ARGV[7] JSON end fields or ''
 * (terminal status, result, error), ARGV[8] the answer's cost in whole micro-dollars (added to the
 * run's costMicroUsd), ARGV[9] the answer's pending tenant spend JSON or '' (kept on the turn as
 * `tenantSpend:<marker>` until the engine adds it to the tenant: tenant-spend.ts), ARGV[10] n events,
 * ARGV[11 .. 10+n] events, then triples {tool_use_id, result JSON, trail JSON} of calls answered
 * here (refused before any tool ran).
 * Returns {1, usage JSON, 1 when the run ended now, tenant, run cost µUSD, 1 when the end owes a
 * webhook delivery (owe_webhook), the run's agent ('' for a run from before agents)}, {0, stored outcome,
 * tenant} when the turn was committed before (that outcome stands), {-1} run missing, {-2, tenant}
 * run terminal. In the last two only the usage, the cost and the pending spend are written: this
 * answer was paid for all the same.
 */
const COMMIT_ANSWER =
  PRELUDE +
  `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {-1} end
-- Everything is decoded before the first write: Redis does not undo a script that fails half-way.
local fields = cjson.decode(ARGV[5])
local endFields = nil
if ARGV[7] ~= '' then endFields = cjson.decode(ARGV[7]) end
-- The answer was paid for whatever becomes of it — a turn committed by another attempt, a run
-- cancelled during the call — so it is charged before anything else is decided.
local charged = charge(KEYS[1], KEYS[2], ARGV[2], ARGV[8], ARGV[9])
if charged.err then return charged end
local encoded, totalCost = charged[1], charged[2]
local existing = redis.call('HGET', KEYS[2], 'outcome')
if existing then return {0, existing, redis.call('HGET', KEYS[1], 'tenant') or ''} end
if is_terminal(status) then return {-2, redis.call('HGET', KEYS[1], 'tenant') or ''} end
if ARGV[3] ~= '' then
  if ARGV[4] == 'replace_last' then redis.call('LSET', KEYS[3], -1, ARGV[3])
  else redis.call('RPUSH', KEYS[3], ARGV[3]) end
end
hset_fields(KEYS[1], fields)
local count = tonumber(ARGV[10])
for index = 11 + count, #ARGV, 3 do
  if redis.call('HSETNX', KEYS[5], ARGV[index], ARGV[index + 1]) == 1 then redis.call('RPUSH', KEYS[6], ARGV[index + 2]) end
end
local ended = 0
local owed = 0
if endFields then
  hset_fields(KEYS[1], endFields)
  ended = 1
  owed = owe_webhook(KEYS[1])
end
append_events(KEYS[4], 11, count)
-- The outcome last: a turn with an outcome is a committed turn, and is replayed, never redone.
redis.call('HSET', KEYS[2], 'response', ARGV[1], 'outcome', ARGV[6])
return {1, encoded, ended, redis.call('HGET', KEYS[1], 'tenant') or '', totalCost, owed, redis.call('HGET', KEYS[1], 'agent') or ''}
`;

/**
 * bfEndRun — moves a run to a terminal state once, with its events (run-end last).
 * KEYS[1] run hash, KEYS[2] event stream. ARGV[1] JSON fields, ARGV[2] n events, ARGV[3..] events.
 * Returns {the run's tenant, 1 when the end owes a webhook delivery, its agent} when this call ended it, false
 * when it had ended already or is missing.
 */
const END_RUN =
  PRELUDE +
  `
local status = redis.call('HGET', KEYS[1], 'status')
if not status or is_terminal(status) then return false end
hset_json(KEYS[1], ARGV[1])
append_events(KEYS[2], 3, tonumber(ARGV[2]))
return {redis.call('HGET', KEYS[1], 'tenant') or '', owe_webhook(KEYS[1]), redis.call('HGET', KEYS[1], 'agent') or ''}
`;

/**
 * bfUpdateIfActive — fields of a run that has not ended, with the events that announce them.
 * KEYS[1] run hash, KEYS[2] event stream. ARGV[1] JSON fields, ARGV[2] n events, ARGV[3..] events.
 * Returns 1 when written, 0 when the run is terminal (nothing written), -1 when it does not exist.
 */
const UPDATE_IF_ACTIVE =
  PRELUDE +
  `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return -1 end
if is_terminal(status) then return 0 end
hset_json(KEYS[1], ARGV[1])
append_events(KEYS[2], 3, tonumber(ARGV[2]))
return 1
`;

/**
 * bfRecordToolResult — the ledger entry, its trail entry and its events, together and once.
 * KEYS[1] results hash, KEYS[2] trail list, KEYS[3] event stream.
 * ARGV[1] tool_use_id, ARGV[2] result JSON, ARGV[3] trail JSON, ARGV[4] n events, ARGV[5..] events.
 * Returns the stored result JSON (the earlier one, and no events, if this id was answered before).
 */
const RECORD_TOOL_RESULT =
  PRELUDE +
  `
local existing = redis.call('HGET', KEYS[1], ARGV[1])
if existing then return existing end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('RPUSH', KEYS[2], ARGV[3])
append_events(KEYS[3], 5, tonumber(ARGV[4]))
return ARGV[2]
`;

/**
 * bfParkForInput — a turn whose ask_user question has no answer yet parks the run.
 * KEYS[1] run hash, KEYS[2] results hash, KEYS[3] event stream.
 * ARGV[1] the ask_user tool_use_id, ARGV[2] ISO time, ARGV[3] the input-wait event.
 * Returns 1 when the answer is there (go on), 0 when the run now waits for input, -2 when terminal.
 */
const PARK_FOR_INPUT =
  PRELUDE +
  `
local status = redis.call('HGET', KEYS[1], 'status')
if not status or is_terminal(status) then return -2 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 1 end
redis.call('HSET', KEYS[1], 'status', ${luaStatus('waiting_for_input')}, 'updatedAt', ARGV[2])
append_events(KEYS[3], 3, 1)
return 0
`;

/**
 * bfAnswerQuestion — closes the open ask_user tool_use with the user's answer.
 * KEYS[1] run hash, KEYS[2] results hash, KEYS[3] trail list, KEYS[4] event stream.
 * ARGV[1] tool_use_id expected open, ARGV[2] result JSON, ARGV[3] trail JSON, ARGV[4] ISO time,
 * ARGV[5] the input-receive event.
 * Returns 1 when the run was parked and must be resumed now, 2 when answered before the turn
 * parked (the pending turn will find it), 0 when no such question is open, -2 when terminal.
 */
const ANSWER_QUESTION =
  PRELUDE +
  `
local status = redis.call('HGET', KEYS[1], 'status')
if not status or is_terminal(status) then return -2 end
local raw = redis.call('HGET', KEYS[1], 'question')
if not raw or raw == '' then return 0 end
local question = cjson.decode(raw)
if question.toolUseId ~= ARGV[1] then return 0 end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 1 then redis.call('RPUSH', KEYS[3], ARGV[3]) end
redis.call('HSET', KEYS[1], 'question', '', 'updatedAt', ARGV[4])
append_events(KEYS[4], 5, 1)
if status == ${luaStatus('waiting_for_input')} then
  redis.call('HSET', KEYS[1], 'status', ${luaStatus('running')})
  return 1
end
return 2
`;

/**
 * bfLoadToolCall — a tool job's start: the result recorded for its tool_use id, or the run and the
 * upstreams its writes depend on now (the kill switch's claim judges them: one round trip for both).
 * KEYS[1] results hash, KEYS[2] run hash, KEYS[3] the run's upstreams zset. ARGV[1] tool_use_id.
 * Returns {recorded result JSON or '', run fields (empty when a result is recorded), live upstream
 * scope ids (or {'*'}; empty when a result is recorded)}.
 */
const LOAD_TOOL_CALL =
  LUA_REDIS_NOW_MS +
  LUA_RUN_UPSTREAM_SCOPES +
  `
local recorded = redis.call('HGET', KEYS[1], ARGV[1])
if recorded then return {recorded, {}, {}} end
return {'', redis.call('HGETALL', KEYS[2]), run_live_upstreams(KEYS[3], redis_now_ms())}
`;

/**
 * bfNoteTurnOverload — when the turn first met an overloaded API (kept across attempts and
 * worker processes, so the overload patience holds for the turn as a whole).
 * KEYS[1] turn hash. ARGV[1] now (epoch ms). Returns the first overload's time (epoch ms).
 */
const NOTE_TURN_OVERLOAD = `
redis.call('HSETNX', KEYS[1], 'overloadSince', ARGV[1])
return tonumber(redis.call('HGET', KEYS[1], 'overloadSince'))
`;

export type StartTurnReply = [number, string?, number?];
export type InspectTurnReply = [-1] | [0, string] | [1, string, string, string, string, string, string, number[], string];
export type CommitAnswerReply = [1, string, number, string, number, number, string] | [0, string, string] | [-1] | [-2, string];
export type LoadTurnReply = [string[], string[], string, string[], number, string[], string[]];

export interface RunScripts {
  bfLoadTurn(run: string, turn: string, previousTurn: string, messages: string, results: string, trail: string, from: number): Promise<LoadTurnReply>;
  bfStartTurn(
    run: string,
    turn: string,
    messages: string,
    events: string,
    fieldsJson: string,
    jobId: string,
    eventCount: number,
    ...rest: string[]
  ): Promise<StartTurnReply>;
  bfCommitAnswer(
    run: string,
    turn: string,
    messages: string,
    events: string,
    results: string,
    trail: string,
    ...args: Array<string | number>
  ): Promise<CommitAnswerReply>;
  bfEndRun(run: string, stream: string, fieldsJson: string, eventCount: number, ...events: string[]): Promise<[string, number, string] | null>;
  bfUpdateIfActive(run: string, stream: string, fieldsJson: string, eventCount: number, ...events: string[]): Promise<number>;
  bfRecordToolResult(
    results: string,
    trail: string,
    stream: string,
    toolUseId: string,
    resultJson: string,
    trailJson: string,
    eventCount: number,
    ...events: string[]
  ): Promise<string>;
  bfParkForInput(run: string, results: string, events: string, toolUseId: string, now: string, event: string): Promise<number>;
  bfAnswerQuestion(
    run: string,
    results: string,
    trail: string,
    events: string,
    toolUseId: string,
    resultJson: string,
    trailJson: string,
    now: string,
    event: string,
  ): Promise<number>;
  bfNoteTurnOverload(turn: string, nowMs: number): Promise<number>;
  bfLoadToolCall(results: string, run: string, runUpstreams: string, toolUseId: string): Promise<[string, string[], unknown]>;
  bfChargeCall(run: string, turn: string, usageJson: string, costMicroUsd: string, pendingJson: string): Promise<[number, string?]>;
  bfInspectTurn(run: string, turn: string, previousTurn: string, results: string, turnNumber: string): Promise<InspectTurnReply>;
  bfResumeTurn(
    run: string,
    turn: string,
    events: string,
    turnNumber: string,
    updatedAt: string,
    recoveries: string,
    jobId: string,
    now: string,
    event: string,
  ): Promise<number>;
  bfEndRunIfUnchanged(
    run: string,
    stream: string,
    turnNumber: string,
    updatedAt: string,
    fieldsJson: string,
    eventCount: number,
    ...events: string[]
  ): Promise<[number, string?, number?, string?]>;
  bfExpireArchivedRun(...keysThenArgs: Array<string | number>): Promise<[number]>;
}

const definitions = {
  bfLoadTurn: { numberOfKeys: 6, lua: LOAD_TURN },
  bfStartTurn: { numberOfKeys: 4, lua: START_TURN },
  bfCommitAnswer: { numberOfKeys: 6, lua: COMMIT_ANSWER },
  bfEndRun: { numberOfKeys: 2, lua: END_RUN },
  bfUpdateIfActive: { numberOfKeys: 2, lua: UPDATE_IF_ACTIVE },
  bfRecordToolResult: { numberOfKeys: 3, lua: RECORD_TOOL_RESULT },
  bfParkForInput: { numberOfKeys: 3, lua: PARK_FOR_INPUT },
  bfAnswerQuestion: { numberOfKeys: 4, lua: ANSWER_QUESTION },
  bfNoteTurnOverload: { numberOfKeys: 1, lua: NOTE_TURN_OVERLOAD },
  bfLoadToolCall: { numberOfKeys: 3, lua: LOAD_TOOL_CALL },
  bfChargeCall: { numberOfKeys: 2, lua: CHARGE_CALL },
  bfInspectTurn: { numberOfKeys: 4, lua: INSPECT_TURN },
  bfResumeTurn: { numberOfKeys: 3, lua: RESUME_TURN },
  bfEndRunIfUnchanged: { numberOfKeys: 2, lua: END_RUN_IF_UNCHANGED },
  // A variable number of keys: the caller passes the count first (defineCommand without numberOfKeys).
  bfExpireArchivedRun: { lua: EXPIRE_ARCHIVED_RUN },
} as const;

/** Registers the scripts on a connection (idempotent) and returns them typed. */
export function defineRunScripts(redis: RedisClient): RunScripts {
  return defineLuaCommands<RunScripts>(redis, definitions);
}
