// Lua scripts for tool effects that must be atomic against parallel tool calls of one turn
// (a model often sends several write_file or todo_complete calls in one message, and the tool
// queue runs them concurrently), and — for every write a write tool makes — against the kill
// switch and the run's state. The run engine owns them: only src/engine calls them (tools reach
// them through src/engine/effects/), and the fence's terminal check comes from the domain's
// statuses (lua-vocabulary.ts).
//
// The write fence. Every write script starts with the same five keys and two arguments:
//   KEYS[1] the fleet kill switch hash (keys.ts killSwitch()), KEYS[2] the run hash, KEYS[3] the
//   run's write journal list, KEYS[4] the kill switch's scopes hash, KEYS[5] the run's upstreams
//   (kill-switch-keys.ts); ARGV[1] the switch input, JSON, ARGV[2] the tool name. The switch input:
//   {"probe": token, "call": id}     one server: the switch is judged here, in the write's own
//                        step, from KEYS[1] and KEYS[4] (token: the half-open probe token, '' for
//                        none; id: the tool call writing, '' for none — write-fence.ts WriteFence)
//   {"blocking": [ids], "call": id}  Redis Cluster: the switch's keys are in another slot, so it was read just
//                        before on its own slot (bfKillSwitchFenceState) and ARGV[1] lists the
//                        scopes that refuse this write ('fleet', 'tenant:<t>', 'upstream:…');
//                        KEYS[1] and KEYS[4] are then the run hash again, never read. Which of
//                        them cover this run (its tenant, the upstreams in KEYS[5]) is judged here.
//                        Why the split and what it costs: src/engine/effects/write-fence.ts.
// and refuses, writing nothing, with
//   'killswitch_read_only'   a scope that covers this write is read_only, or half_open and this
//                            write is not its probe: the fleet, the run's tenant, or an upstream
//                            the run depends on (src/safety/kill-switch.ts says which depend)
//   'run_ended'              the run is terminal
//   'safe_mode_skip_writes'  the run is in skip_writes safe mode
// A workspace file write or delete its call already made (an attempt that died before recording
// its result, run again) answers 'ok' first, writing nothing (applied_before below).
// Otherwise it writes and appends {at_ms (Redis TIME), tool, kind, target, call} to the journal in
// the same step, so "no write landed after the trip" can be checked from the journal alone (on one
// server; on a cluster, within the bound write-fence.ts states).
import { defineLuaCommands } from '../redis/define-lua-commands.js';
import { LUA_HSET_JSON, LUA_IS_TERMINAL } from './lua-vocabulary.js';
import { LUA_RUN_UPSTREAM_SCOPES, RUN_READ_EVERY_UPSTREAM } from './run-upstream-scopes-lua.js';
import type { RedisClient } from '../redis/redis-connection.js';
import { LUA_REDIS_NOW_MS } from '../redis/lua-redis-time.js';

// Does a scope in this state refuse a write holding probe token `probe` ('' for none)? Shared by
// the fence's one-server check and bfKillSwitchFenceState, so both judge alike.
const LUA_SCOPE_REFUSES = `
local function scope_refuses(mode, holder, probe)
  if mode == 'read_only' then return true end
  return mode == 'half_open' and (probe == '' or holder ~= probe)
end
`;

/** How far back in a run's write journal a write looks for its own call's earlier attempt. */
const APPLIED_LOOKBACK = 512;

const WRITE_FENCE =
  LUA_IS_TERMINAL +
  LUA_HSET_JSON +
  LUA_REDIS_NOW_MS +
  LUA_RUN_UPSTREAM_SCOPES +
  LUA_SCOPE_REFUSES +
  `
local switch_input = cjson.decode(ARGV[1])
local function scope_blocks(raw)
  if not raw then return false end
  local state = cjson.decode(raw)
  return scope_refuses(state.mode, state.probe, switch_input.probe)
end
-- One server: the switch's keys are here, judged in this step.
local function switch_refuses_here()
  local mode = redis.call('HGET', KEYS[1], 'mode')
  if scope_refuses(mode, mode == 'half_open' and redis.call('HGET', KEYS[1], 'probe') or nil, switch_input.probe) then return true end
  -- The run's tenant scope, then every upstream scope the run depends on until now (the smaller
  -- of the run's upstreams and the tripped scopes is walked: run-upstream-scopes-lua.ts).
  local tenant = redis.call('HGET', KEYS[2], 'tenant')
  if tenant and scope_blocks(redis.call('HGET', KEYS[4], 'tenant:' .. tenant)) then return true end
  return each_run_upstream_scope(KEYS[4], KEYS[5], redis_now_ms(), function(_, raw) return scope_blocks(raw) end) ~= nil
end
-- A cluster: the scopes that refuse this write were read on the switch's slot; those that cover
-- this run refuse it (bounded by the tripped scopes, one ZSCORE each).
local function switch_refused_before()
  local tenant = redis.call('HGET', KEYS[2], 'tenant')
  local now = redis_now_ms()
  local every_until = tonumber(redis.call('ZSCORE', KEYS[5], '${RUN_READ_EVERY_UPSTREAM}') or '')
  for _, id in ipairs(switch_input.blocking) do
    if id == 'fleet' or (tenant and id == 'tenant:' .. tenant) then return true end
    if string.sub(id, 1, 9) == 'upstream:' then
      if every_until ~= nil and every_until >= now then return true end
      local until_ms = tonumber(redis.call('ZSCORE', KEYS[5], id) or '')
      if until_ms ~= nil and until_ms >= now then return true end
    end
  end
  return false
end
local function write_refusal()
  local refuses
  if switch_input.blocking then refuses = switch_refused_before() else refuses = switch_refuses_here() end
  if refuses then return 'killswitch_read_only' end
  local status = redis.call('HGET', KEYS[2], 'status')
  if is_terminal(status) then return 'run_ended' end
  if redis.call('HGET', KEYS[2], 'safeMode') == 'skip_writes' then return 'safe_mode_skip_writes' end
  return false
end
local function journal(kind, target)
  local at = redis_now_ms()
  local call = switch_input.call
  if call == '' then call = nil end
  redis.call('RPUSH', KEYS[3], cjson.encode({at_ms = at, tool = ARGV[2], kind = kind, target = target, call = call}))
end
-- Whether this tool call already made this write: an attempt that died after its write and before
-- its result was recorded is run again, and its write must not land twice — it would journal a
-- second effect and, had a later call of the turn written the same path meanwhile, put the older
-- content back. Read from the journal (the same step journals every write with its call): the
-- last ${APPLIED_LOOKBACK} entries. They reach back past the first attempt unless the calls of its
-- own turn made more writes than that since (a turn waits for all its calls before the next one
-- begins, so no other turn's writes come in between); the scan stays bounded on long runs.
local function applied_before(kind, target)
  local call = switch_input.call
  if not call or call == '' then return false end
  local needle = cjson.encode({call = call})
  needle = string.sub(needle, 2, string.len(needle) - 1)
  for _, raw in ipairs(redis.call('LRANGE', KEYS[3], -${APPLIED_LOOKBACK}, -1)) do
    if string.find(raw, needle, 1, true) then
      local entry = cjson.decode(raw)
      if entry.call == call and entry.kind == kind and entry.target == target then return true end
    end
  end
  return false
end
`;

/**
 * bfWriteWorkspaceFile
 * KEYS[1..5] the write fence (above), KEYS[6] workspace files hash, KEYS[7] guard hash (the theme
 * hash, or the files hash when unused).
 * ARGV[1..2] the write fence, ARGV[3] path, ARGV[4] content, ARGV[5] max files, ARGV[6] max bytes
 * per file, ARGV[7] max total bytes, ARGV[8] guard field ('' for an unconditional write),
 * ARGV[9] expected guard value.
 * Returns 'ok' when written, a write fence refusal, 'stale' when the guard field no longer holds
 * the expected value (a newer generator run owns the file; nothing written), or the ToolError code
 * of the limit the write would break: 'file_too_large', 'workspace_file_limit', 'workspace_too_large'.
 */
const WRITE_WORKSPACE_FILE =
  WRITE_FENCE +
  `
-- A guarded write (theme.css) is not skipped: its version guard already decides, and the call
-- holding the newest version must write even when an earlier attempt of it wrote an older one.
if ARGV[8] == '' and applied_before('file', ARGV[3]) then return 'ok' end
local refusal = write_refusal()
if refusal then return refusal end
if ARGV[8] ~= '' and redis.call('HGET', KEYS[7], ARGV[8]) ~= ARGV[9] then return 'stale' end
local size = string.len(ARGV[4])
if size > tonumber(ARGV[6]) then return 'file_too_large' end
local exists = redis.call('HEXISTS', KEYS[6], ARGV[3]) == 1
local count = redis.call('HLEN', KEYS[6])
if not exists and count + 1 > tonumber(ARGV[5]) then return 'workspace_file_limit' end
local total = 0
for _, path in ipairs(redis.call('HKEYS', KEYS[6])) do
  if path ~= ARGV[3] then total = total + redis.call('HSTRLEN', KEYS[6], path) end
end
if total + size > tonumber(ARGV[7]) then return 'workspace_too_large' end
redis.call('HSET', KEYS[6], ARGV[3], ARGV[4])
journal('file', ARGV[3])
return 'ok'
`;

/**
 * bfDeleteWorkspaceFile
 * KEYS[1..5] the write fence, KEYS[6] workspace files hash. ARGV[1..2] the write fence, ARGV[3] path.
 * Returns 'ok' when deleted, 'missing' when there was no such file, or a write fence refusal.
 */
const DELETE_WORKSPACE_FILE =
  WRITE_FENCE +
  `
if applied_before('delete', ARGV[3]) then return 'ok' end
local refusal = write_refusal()
if refusal then return refusal end
if redis.call('HDEL', KEYS[6], ARGV[3]) == 0 then return 'missing' end
journal('delete', ARGV[3])
return 'ok'
`;

/**
 * bfRecordDeployment — records a deployment whose files are already on the SiteStore (issue #21;
 * src/engine/effects/deployments.ts). The one place that decides a deployment exists: once per
 * deploy id, behind the write fence.
 * KEYS[1..5] the write fence, KEYS[6] deployments zset (KEYS[2], the run hash, gets latestDeploy).
 * ARGV[1..2] the write fence, ARGV[3] deploy id, ARGV[4] ISO time.
 * Returns {'ok', 1} when this call recorded it, {'ok', 0} when it was recorded already (a retry:
 * returned even when the fence would refuse, as nothing new is written), or {refusal}.
 */
const RECORD_DEPLOYMENT =
  WRITE_FENCE +
  `
if redis.call('ZSCORE', KEYS[6], ARGV[3]) then return {'ok', 0} end
local refusal = write_refusal()
if refusal then return {refusal} end
redis.call('ZADD', KEYS[6], redis.call('ZCARD', KEYS[6]) + 1, ARGV[3])
redis.call('HSET', KEYS[2], 'latestDeploy', ARGV[3], 'updatedAt', ARGV[4])
journal('deployment', ARGV[3])
return {'ok', 1}
`;

/**
 * bfPublishDeployment — makes a recorded deployment the run's live one (publish).
 * KEYS[1..5] the write fence, KEYS[6] deployments zset. ARGV[1..2] the write fence, ARGV[3] deploy
 * id, ARGV[4] ISO time, ARGV[5] the journal target (the fields JSON, as bfUpdateRunFields journaled
 * publishes before, so audits read both alike).
 * Returns {'ok', sequence} — the journal's length after this publish's entry: the journal only
 * grows, so a later publish of the run always gets a higher number, which orders the SiteStore's
 * published pointers — or {'missing'} when the run has no such deployment, or {refusal}.
 */
const PUBLISH_DEPLOYMENT =
  WRITE_FENCE +
  `
if not redis.call('ZSCORE', KEYS[6], ARGV[3]) then return {'missing'} end
local refusal = write_refusal()
if refusal then return {refusal} end
redis.call('HSET', KEYS[2], 'liveDeploy', ARGV[3], 'updatedAt', ARGV[4])
journal('publish', ARGV[5])
return {'ok', redis.call('LLEN', KEYS[3])}
`;

/**
 * bfUpdateRunFields — a write tool's change to the run record (publish's liveDeploy, set_meta's meta).
 * KEYS[1..5] the write fence. ARGV[1..2] the write fence, ARGV[3] JSON object of string fields,
 * ARGV[4] journal kind ('publish', 'meta').
 * Returns 'ok' or a write fence refusal.
 */
const UPDATE_RUN_FIELDS =
  WRITE_FENCE +
  `
local refusal = write_refusal()
if refusal then return refusal end
hset_json(KEYS[2], ARGV[3])
journal(ARGV[4], ARGV[3])
return 'ok'
`;

/**
 * bfSetHashField — one guarded field write (regen_og's asset).
 * KEYS[1..5] the write fence, KEYS[6] the hash. ARGV[1..2] the write fence, ARGV[3] field,
 * ARGV[4] value, ARGV[5] journal kind.
 * Returns 'ok' or a write fence refusal.
 */
const SET_HASH_FIELD =
  WRITE_FENCE +
  `
local refusal = write_refusal()
if refusal then return refusal end
redis.call('HSET', KEYS[6], ARGV[3], ARGV[4])
journal(ARGV[5], ARGV[3])
return 'ok'
`;

/**
 * bfUpdateTheme — stores one theme part and bumps the theme version.
 * KEYS[1..5] the write fence, KEYS[6] theme hash. ARGV[1..2] the write fence, ARGV[3] field
 * ('colors' | 'fonts'), ARGV[4] JSON value.
 * Returns {'ok', version} or {refusal}.
 */
const UPDATE_THEME =
  WRITE_FENCE +
  `
local refusal = write_refusal()
if refusal then return {refusal} end
redis.call('HSET', KEYS[6], ARGV[3], ARGV[4])
local version = redis.call('HINCRBY', KEYS[6], 'version', 1)
journal('theme', ARGV[3])
return {'ok', version}
`;

/**
 * bfCompleteTodo
 * KEYS[1] run hash. ARGV[1] todo id.
 * Returns the todos JSON after marking the todo done, or false when no todo has that id.
 * Read-modify-write in one script so two todo_complete calls of one turn cannot lose each other.
 */
const COMPLETE_TODO = `
local raw = redis.call('HGET', KEYS[1], 'todos')
if not raw or raw == '' then return false end
local todos = cjson.decode(raw)
local found = false
for _, todo in ipairs(todos) do
  if todo.id == ARGV[1] then
    todo.done = true
    found = true
  end
end
if not found then return false end
local encoded = cjson.encode(todos)
redis.call('HSET', KEYS[1], 'todos', encoded)
return encoded
`;

/**
 * bfKillSwitchFenceState — on Redis Cluster, the write fence's first step, on the switch's slot:
 * which scopes refuse a write holding this probe token.
 * KEYS[1] the fleet kill switch hash, KEYS[2] the scopes hash. ARGV[1] probe token ('' for none).
 * Returns the refusing scope ids: {'fleet'} when the fleet refuses, else every tenant and upstream
 * scope that does (the scopes hash holds only tripped, half-open or recently reset scopes, so the
 * list is bounded by the trips); the write's step judges which of them cover its run.
 */
const KILL_SWITCH_FENCE_STATE =
  LUA_SCOPE_REFUSES +
  `
local probe = ARGV[1]
local mode = redis.call('HGET', KEYS[1], 'mode')
if scope_refuses(mode, mode == 'half_open' and redis.call('HGET', KEYS[1], 'probe') or nil, probe) then return {'fleet'} end
local refusing = {}
local flat = redis.call('HGETALL', KEYS[2])
for index = 1, #flat, 2 do
  local state = cjson.decode(flat[index + 1])
  if scope_refuses(state.mode, state.probe, probe) then refusing[#refusing + 1] = flat[index] end
end
return refusing
`;

/** What the write fence refuses with (the Lua above returns exactly these). */
export const WRITE_REFUSALS = ['killswitch_read_only', 'run_ended', 'safe_mode_skip_writes'] as const;
export type WriteRefusalOutcome = (typeof WRITE_REFUSALS)[number];

export type WriteWorkspaceFileOutcome = 'ok' | 'stale' | 'file_too_large' | 'workspace_file_limit' | 'workspace_too_large' | WriteRefusalOutcome;

/** The fence's keys and arguments, in script order. */
export type FenceKeys = [switchKey: string, runKey: string, journalKey: string, scopesKey: string, runUpstreamsKey: string];
export type FenceArgs = [switchInput: string, tool: string];

export interface ToolScripts {
  bfWriteWorkspaceFile(
    ...args: [
      ...FenceKeys,
      filesKey: string,
      guardKey: string,
      ...FenceArgs,
      path: string,
      content: string,
      maxFiles: number,
      maxFileBytes: number,
      maxTotalBytes: number,
      guardField: string,
      guardValue: string,
    ]
  ): Promise<WriteWorkspaceFileOutcome>;
  bfDeleteWorkspaceFile(...args: [...FenceKeys, filesKey: string, ...FenceArgs, path: string]): Promise<'ok' | 'missing' | WriteRefusalOutcome>;
  bfRecordDeployment(
    ...args: [...FenceKeys, deploymentsKey: string, ...FenceArgs, deployId: string, now: string]
  ): Promise<['ok', number] | [WriteRefusalOutcome]>;
  bfPublishDeployment(
    ...args: [...FenceKeys, deploymentsKey: string, ...FenceArgs, deployId: string, now: string, journalTarget: string]
  ): Promise<['ok', number] | ['missing'] | [WriteRefusalOutcome]>;
  bfUpdateRunFields(...args: [...FenceKeys, ...FenceArgs, fieldsJson: string, kind: string]): Promise<'ok' | WriteRefusalOutcome>;
  bfSetHashField(
    ...args: [...FenceKeys, hashKey: string, ...FenceArgs, field: string, value: string | Buffer, kind: string]
  ): Promise<'ok' | WriteRefusalOutcome>;
  bfUpdateTheme(...args: [...FenceKeys, themeKey: string, ...FenceArgs, field: string, value: string]): Promise<['ok', number] | [WriteRefusalOutcome]>;
  bfCompleteTodo(runKey: string, todoId: string): Promise<string | null>;
  bfKillSwitchFenceState(switchKey: string, scopesKey: string, probeToken: string): Promise<string[]>;
}

const definitions = {
  bfWriteWorkspaceFile: { numberOfKeys: 7, lua: WRITE_WORKSPACE_FILE },
  bfDeleteWorkspaceFile: { numberOfKeys: 6, lua: DELETE_WORKSPACE_FILE },
  bfRecordDeployment: { numberOfKeys: 6, lua: RECORD_DEPLOYMENT },
  bfPublishDeployment: { numberOfKeys: 6, lua: PUBLISH_DEPLOYMENT },
  bfUpdateRunFields: { numberOfKeys: 5, lua: UPDATE_RUN_FIELDS },
  bfSetHashField: { numberOfKeys: 6, lua: SET_HASH_FIELD },
  bfUpdateTheme: { numberOfKeys: 6, lua: UPDATE_THEME },
  bfCompleteTodo: { numberOfKeys: 1, lua: COMPLETE_TODO },
  bfKillSwitchFenceState: { numberOfKeys: 2, lua: KILL_SWITCH_FENCE_STATE },
} as const;

/** Registers the scripts on a connection (idempotent) and returns them typed. */
export function defineToolScripts(redis: RedisClient): ToolScripts {
  return defineLuaCommands<ToolScripts>(redis, definitions);
}
