// Lua scripts for tool effects that must be atomic against parallel tool calls of one turn
// (a model often sends several write_file or todo_complete calls in one message, and the tool
// queue runs them concurrently). Candidates to move into run-scripts.ts.
import type { Redis } from 'ioredis';

/**
 * bfWriteWorkspaceFile
 * KEYS[1] workspace files hash, KEYS[2] guard hash (the theme hash, or the files hash when unused).
 * ARGV[1] path, ARGV[2] content, ARGV[3] max files, ARGV[4] max bytes per file, ARGV[5] max total
 * bytes, ARGV[6] guard field ('' for an unconditional write), ARGV[7] expected guard value.
 * Returns 'ok' when written, 'stale' when the guard field no longer holds the expected value
 * (a newer generator run owns the file; nothing written), or the ToolError code of the limit the
 * write would break: 'file_too_large', 'workspace_file_limit', 'workspace_too_large'.
 */
const WRITE_WORKSPACE_FILE = `
if ARGV[6] ~= '' and redis.call('HGET', KEYS[2], ARGV[6]) ~= ARGV[7] then return 'stale' end
local size = string.len(ARGV[2])
if size > tonumber(ARGV[4]) then return 'file_too_large' end
local exists = redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1
local count = redis.call('HLEN', KEYS[1])
if not exists and count + 1 > tonumber(ARGV[3]) then return 'workspace_file_limit' end
local total = 0
for _, path in ipairs(redis.call('HKEYS', KEYS[1])) do
  if path ~= ARGV[1] then total = total + redis.call('HSTRLEN', KEYS[1], path) end
end
if total + size > tonumber(ARGV[5]) then return 'workspace_too_large' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 'ok'
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

export type WriteWorkspaceFileOutcome = 'ok' | 'stale' | 'file_too_large' | 'workspace_file_limit' | 'workspace_too_large';

export interface ToolScripts {
  bfWriteWorkspaceFile(
    filesKey: string,
    guardKey: string,
    path: string,
    content: string,
    maxFiles: number,
    maxFileBytes: number,
    maxTotalBytes: number,
    guardField: string,
    guardValue: string,
  ): Promise<WriteWorkspaceFileOutcome>;
  bfCompleteTodo(runKey: string, todoId: string): Promise<string | null>;
}

const definitions = {
  bfWriteWorkspaceFile: { numberOfKeys: 2, lua: WRITE_WORKSPACE_FILE },
  bfCompleteTodo: { numberOfKeys: 1, lua: COMPLETE_TODO },
} as const;

/** Registers the scripts on a connection (idempotent) and returns them typed. */
export function defineToolScripts(redis: Redis): ToolScripts {
  const commands = redis as unknown as Record<string, unknown>;
  for (const [name, definition] of Object.entries(definitions)) {
    if (typeof commands[name] !== 'function') redis.defineCommand(name, definition);
  }
  return commands as unknown as ToolScripts;
}
