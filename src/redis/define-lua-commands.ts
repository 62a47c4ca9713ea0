// Registers Lua scripts on an ioredis connection as commands (run by EVALSHA after the first
// call). Idempotent per connection, so every module can ask for its scripts where it needs them.
import type { RedisClient } from './redis-connection.js';

// No numberOfKeys: the caller passes the key count as the first argument (ioredis defineCommand).
export type LuaDefinitions = Readonly<Record<string, { numberOfKeys?: number; lua: string }>>;

export function defineLuaCommands<Commands>(redis: RedisClient, definitions: LuaDefinitions): Commands {
  const commands = redis as unknown as Record<string, unknown>;
  for (const [name, definition] of Object.entries(definitions)) {
    if (typeof commands[name] !== 'function') redis.defineCommand(name, definition);
  }
  return commands as unknown as Commands;
}
