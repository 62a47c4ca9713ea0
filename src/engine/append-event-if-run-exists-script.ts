// bfAppendEventIfRunExists: an event for a run that may have ended long ago (a webhook delivery's
// attempt, docs/webhooks.md). XADD creates a stream that does not exist: after the run's keys
// expired (its retention, docs/history.md#retention) that would leave an event stream with no
// TTL and no run, which nothing ever removes. Checking the record first, in the same script, rules
// that out; while the keys are expiring the stream keeps its TTL (XADD does not clear one).
import type { RedisClient } from '../redis/redis-connection.js';
import { defineLuaCommands } from '../redis/define-lua-commands.js';

/**
 * bfAppendEventIfRunExists — appends one event to a run's stream only while its record exists.
 * KEYS[1] run hash, KEYS[2] event stream (one hash tag: one slot).
 * ARGV[1] the event's JSON.
 * Returns 1 appended, 0 no run record (nothing written).
 */
const APPEND_EVENT_IF_RUN_EXISTS = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', '10000', '*', 'data', ARGV[1])
return 1
`;

interface AppendEventIfRunExistsCommands {
  bfAppendEventIfRunExists(runKey: string, eventsKey: string, eventJson: string): Promise<number>;
}

export function defineAppendEventIfRunExistsScript(redis: RedisClient): AppendEventIfRunExistsCommands {
  return defineLuaCommands<AppendEventIfRunExistsCommands>(redis, { bfAppendEventIfRunExists: { numberOfKeys: 2, lua: APPEND_EVENT_IF_RUN_EXISTS } });
}
