// Lua scripts that make each once-only step of a run atomic. Registered with ioredis
// defineCommand, so they run by EVALSHA after the first call.
import { defineLuaCommands } from './define-lua-commands.js';
import type { Redis } from 'ioredis';

const TERMINAL_CHECK = `
local status = redis.call('HGET', KEYS[RUN_KEY], 'status')
local terminal = status == 'succeeded' or status == 'failed' or status == 'refused' or status == 'cancelled'
`;

function withTerminalCheck(runKeyIndex: number, body: string): string {
  return TERMINAL_CHECK.replace('RUN_KEY', String(runKeyIndex)) + body;
}

const HSET_FROM_JSON = `
local function hset_json(key, json)
  local fields = cjson.decode(json)
  local flat = {}
  for field, value in pairs(fields) do
    flat[#flat + 1] = field
    flat[#flat + 1] = value
  end
  if #flat > 0 then redis.call('HSET', key, unpack(flat)) end
end
`;

/**
 * updateIfActive
 * KEYS[1] run hash. ARGV[1] JSON object of string fields.
 * Returns 1 when written, 0 when the run is terminal (nothing written), -1 when it does not exist.
 */
const UPDATE_IF_ACTIVE =
  HSET_FROM_JSON +
  withTerminalCheck(
    1,
    `
if not status then return -1 end
if terminal then return 0 end
hset_json(KEYS[1], ARGV[1])
return 1
`,
  );

/**
 * addUsage
 * KEYS[1] run hash. ARGV[1] input tokens, ARGV[2] output tokens.
 * Returns the new usage as a JSON string.
 */
const ADD_USAGE = `
local raw = redis.call('HGET', KEYS[1], 'usage')
local usage = { input_tokens = 0, output_tokens = 0 }
if raw and raw ~= '' then usage = cjson.decode(raw) end
usage.input_tokens = usage.input_tokens + tonumber(ARGV[1])
usage.output_tokens = usage.output_tokens + tonumber(ARGV[2])
local encoded = cjson.encode(usage)
redis.call('HSET', KEYS[1], 'usage', encoded)
return encoded
`;

/**
 * snapshotDeployment
 * KEYS[1] workspace files hash, KEYS[2] deployment hash, KEYS[3] deployments zset, KEYS[4] run hash.
 * ARGV[1] deploy id, ARGV[2] ISO time.
 * Returns {1, paths} when this call made the snapshot, {0, paths} when it existed already.
 */
const SNAPSHOT_DEPLOYMENT = `
if redis.call('ZSCORE', KEYS[3], ARGV[1]) then
  return {0, redis.call('HKEYS', KEYS[2])}
end
local files = redis.call('HGETALL', KEYS[1])
if #files > 0 then redis.call('HSET', KEYS[2], unpack(files)) end
redis.call('ZADD', KEYS[3], redis.call('ZCARD', KEYS[3]) + 1, ARGV[1])
redis.call('HSET', KEYS[4], 'latestDeploy', ARGV[1], 'updatedAt', ARGV[2])
return {1, redis.call('HKEYS', KEYS[2])}
`;

/**
 * commitTurnInput
 * KEYS[1] turn hash, KEYS[2] transcript list, KEYS[3] run hash.
 * ARGV[1] JSON object of run fields to set, ARGV[2..n] messages to append, each already JSON
 * (appended as given: re-encoding through cjson would turn [] into {}).
 * Returns 1 when committed now, 0 when this turn's input was committed before, -2 when the run
 * is terminal.
 */
const COMMIT_TURN_INPUT =
  HSET_FROM_JSON +
  withTerminalCheck(
    3,
    `
if redis.call('HEXISTS', KEYS[1], 'inputCommitted') == 1 then return 0 end
if terminal then return -2 end
for index = 2, #ARGV do
  redis.call('RPUSH', KEYS[2], ARGV[index])
end
hset_json(KEYS[3], ARGV[1])
redis.call('HSET', KEYS[1], 'inputCommitted', '1', 'transcriptLength', redis.call('LLEN', KEYS[2]))
return 1
`,
  );

/**
 * commitTurnOutput
 * KEYS[1] turn hash, KEYS[2] transcript list, KEYS[3] run hash.
 * ARGV[1] assistant message JSON or '' to append none, ARGV[2] JSON run fields, ARGV[3] outcome JSON,
 * ARGV[4] 'append' or 'replace_last' (a pause_turn continuation extends the last assistant message).
 * Returns 1 when committed now, 0 when committed before (the stored outcome stands), -2 when the
 * run is terminal (nothing written).
 */
const COMMIT_TURN_OUTPUT =
  HSET_FROM_JSON +
  withTerminalCheck(
    3,
    `
if redis.call('HEXISTS', KEYS[1], 'outcome') == 1 then return 0 end
if terminal then return -2 end
if ARGV[1] ~= '' then
  if ARGV[4] == 'replace_last' then redis.call('LSET', KEYS[2], -1, ARGV[1])
  else redis.call('RPUSH', KEYS[2], ARGV[1]) end
end
hset_json(KEYS[3], ARGV[2])
redis.call('HSET', KEYS[1], 'outcome', ARGV[3])
return 1
`,
  );


/**
 * recordToolResult — the ledger write and the trail entry happen together, once.
 * KEYS[1] ledger key (one tool_use_id), KEYS[2] trail list.
 * ARGV[1] result JSON, ARGV[2] trail entry JSON.
 * Returns the stored result JSON (the earlier one if this tool_use_id was answered before).
 */
const RECORD_TOOL_RESULT = `
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('RPUSH', KEYS[2], ARGV[2])
return ARGV[1]
`;

/**
 * parkForInput — a turn whose ask_user question has no answer yet parks the run.
 * KEYS[1] run hash, KEYS[2] ledger key of the ask_user tool_use_id. ARGV[1] ISO time.
 * Returns 1 when the answer is there (go on), 0 when the run is now waiting_for_input,
 * -2 when the run is terminal.
 */
const PARK_FOR_INPUT =
  withTerminalCheck(
    1,
    `
if terminal then return -2 end
if redis.call('EXISTS', KEYS[2]) == 1 then return 1 end
redis.call('HSET', KEYS[1], 'status', 'waiting_for_input', 'updatedAt', ARGV[1])
return 0
`,
  );

/**
 * answerQuestion — closes the open ask_user tool_use with the user's answer.
 * KEYS[1] run hash, KEYS[2] ledger key, KEYS[3] trail list.
 * ARGV[1] tool_use_id expected open, ARGV[2] result JSON, ARGV[3] trail JSON, ARGV[4] ISO time.
 * Returns 1 when the run was parked and must be resumed now, 2 when answered before the turn
 * parked (the pending turn will find it), 0 when no such question is open, -2 when terminal.
 */
const ANSWER_QUESTION =
  withTerminalCheck(
    1,
    `
if terminal then return -2 end
local raw = redis.call('HGET', KEYS[1], 'question')
if not raw or raw == '' then return 0 end
local question = cjson.decode(raw)
if question.toolUseId ~= ARGV[1] then return 0 end
if redis.call('SET', KEYS[2], ARGV[2], 'NX') then
  redis.call('RPUSH', KEYS[3], ARGV[3])
end
redis.call('HSET', KEYS[1], 'question', '', 'updatedAt', ARGV[4])
if status == 'waiting_for_input' then
  redis.call('HSET', KEYS[1], 'status', 'running')
  return 1
end
return 2
`,
  );

export interface RunScripts {
  updateIfActive(runKey: string, fieldsJson: string): Promise<number>;
  addUsage(runKey: string, inputTokens: number, outputTokens: number): Promise<string>;
  snapshotDeployment(
    filesKey: string,
    deploymentKey: string,
    deploymentsKey: string,
    runKey: string,
    deployId: string,
    now: string,
  ): Promise<unknown>;
  commitTurnInput(turnKey: string, messagesKey: string, runKey: string, fieldsJson: string, ...messages: string[]): Promise<number>;
  commitTurnOutput(
    turnKey: string,
    messagesKey: string,
    runKey: string,
    assistantJson: string,
    fieldsJson: string,
    outcomeJson: string,
    placement: 'append' | 'replace_last',
  ): Promise<number>;
  recordToolResult(ledgerKey: string, trailKey: string, resultJson: string, trailJson: string): Promise<string>;
  parkForInput(runKey: string, ledgerKey: string, now: string): Promise<number>;
  answerQuestion(
    runKey: string,
    ledgerKey: string,
    trailKey: string,
    toolUseId: string,
    resultJson: string,
    trailJson: string,
    now: string,
  ): Promise<number>;
}

const definitions = {
  updateIfActive: { numberOfKeys: 1, lua: UPDATE_IF_ACTIVE },
  addUsage: { numberOfKeys: 1, lua: ADD_USAGE },
  snapshotDeployment: { numberOfKeys: 4, lua: SNAPSHOT_DEPLOYMENT },
  commitTurnInput: { numberOfKeys: 3, lua: COMMIT_TURN_INPUT },
  commitTurnOutput: { numberOfKeys: 3, lua: COMMIT_TURN_OUTPUT },
  recordToolResult: { numberOfKeys: 2, lua: RECORD_TOOL_RESULT },
  parkForInput: { numberOfKeys: 2, lua: PARK_FOR_INPUT },
  answerQuestion: { numberOfKeys: 3, lua: ANSWER_QUESTION },
} as const;

/** Registers the scripts on a connection (idempotent) and returns them typed. */
export function defineRunScripts(redis: Redis): RunScripts {
  return defineLuaCommands<RunScripts>(redis, definitions);
}
