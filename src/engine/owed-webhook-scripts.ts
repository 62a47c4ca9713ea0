// The two compare-and-delete steps of an owed webhook delivery (docs/webhooks.md#guarantee). A run
// that ends owes its `run.ended` delivery: the ending script records it on the run's hash
// (`webhookOwed`, run-scripts.ts owe_webhook) and the engine adds the run to the fleet-wide
// owed-webhook index. Once the delivery's job exists, the record is settled; the index entry goes
// after, and only if it still names the end it was added for — a run resumed and ended again
// meanwhile owes a new delivery, which neither step may erase.
import type { RedisClient } from '../redis/redis-connection.js';
import { defineLuaCommands } from '../redis/define-lua-commands.js';

/**
 * bfSettleOwedWebhook — clears the run's owed-delivery record if it is still the one enqueued.
 * KEYS[1] run hash. ARGV[1] the `webhookOwed` value the caller enqueued the delivery of.
 * Returns 1 cleared, 0 the record is another end's (or gone): nothing written.
 */
const SETTLE_OWED_WEBHOOK = `
if redis.call('HGET', KEYS[1], 'webhookOwed') ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[1], 'webhookOwed')
return 1
`;

/**
 * bfForgetOwedWebhook — removes a run from the owed-webhook index if its score is still the one
 * the caller read (a later end of the run re-scores it: ZADD GT).
 * KEYS[1] the owed-webhook index (fleet-wide: one key, slot-safe). ARGV[1] run id, ARGV[2] score.
 * Returns 1 removed, 0 the entry changed or is gone.
 */
const FORGET_OWED_WEBHOOK = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
`;

interface OwedWebhookCommands {
  bfSettleOwedWebhook(runKey: string, owed: string): Promise<number>;
  bfForgetOwedWebhook(indexKey: string, runId: string, score: string): Promise<number>;
}

export function defineOwedWebhookScripts(redis: RedisClient): OwedWebhookCommands {
  return defineLuaCommands<OwedWebhookCommands>(redis, {
    bfSettleOwedWebhook: { numberOfKeys: 1, lua: SETTLE_OWED_WEBHOOK },
    bfForgetOwedWebhook: { numberOfKeys: 1, lua: FORGET_OWED_WEBHOOK },
  });
}
