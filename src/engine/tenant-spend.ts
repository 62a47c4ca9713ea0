// A tenant's spend per UTC day and per UTC month: cost in micro-dollars and tokens by class, added
// once per model answer. The run's own cost is committed with the answer (bfCommitAnswer), but the
// tenant's counters live under the tenant's hash tag (keys.ts), another Redis Cluster slot than the
// run's keys, so no one script can write both. The answer's commit therefore also stores its spend
// on the turn as pending (`tenantSpend`); the engine adds it to the tenant right after, through the
// script below, and then deletes the pending entry. The script records each answer's marker (run id
// and turn) in a set of the day, so adding the same spend twice — a worker that died between the
// two steps, whose retried job finds the pending entry when it loads the turn — adds it once.
import type { RedisClient } from '../redis/redis-connection.js';
import { z } from 'zod';
import { USAGE_CLASSES, usageByClassSchema, type UsageByClass } from '../domain/usage.js';
import { microUsdToUsd } from '../domain/usage-cost.js';
import { defineLuaCommands } from '../redis/define-lua-commands.js';

/** Day counters are kept 35 days (a month of days can be read back), month counters 400 days (a
 * year of months and the one before), the markers 2 days (far longer than a job's retries). */
export const TENANT_SPEND_TTL_SECONDS = Object.freeze({ day: 35 * 86_400, month: 400 * 86_400, marker: 2 * 86_400 });

/** The UTC day (YYYY-MM-DD) and month (YYYY-MM) of an instant: the periods its spend counts in. */
export function spendPeriods(at: Date): { day: string; month: string } {
  const iso = at.toISOString();
  return { day: iso.slice(0, 10), month: iso.slice(0, 7) };
}

/** One answer's spend, stored on its turn until it has been added to the tenant's counters. */
export const pendingSpendSchema = z.object({
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  month: z.string().regex(/^\d{4}-\d{2}$/),
  costMicroUsd: z.int().nonnegative(),
  usage: usageByClassSchema,
  /** Unique per answer (run id and turn): the tenant's day set remembers it once added. */
  marker: z.string().min(1),
});
export type PendingSpend = z.infer<typeof pendingSpendSchema>;

/** The turn-hash field an answer's spend waits in until it is added to the tenant (one per paid
 * answer). */
export function pendingSpendField(marker: string): string {
  return `tenantSpend:${marker}`;
}

export function isPendingSpendField(field: string): boolean {
  return field.startsWith('tenantSpend:');
}

/** The counter a period hash keeps the cost in; the token classes use their usage class names. */
export const COST_FIELD = 'costMicroUsd';

/**
 * bfAddTenantSpend — adds one answer's spend to the tenant's day and month, once.
 * KEYS[1] the day's hash, KEYS[2] the month's hash, KEYS[3] the day's set of added markers (all
 * three under the tenant's hash tag).
 * ARGV[1] the answer's marker, ARGV[2] day TTL s, ARGV[3] month TTL s, ARGV[4] marker set TTL s,
 * ARGV[5..] pairs {field, whole number to add} (costMicroUsd and the token classes).
 * Returns 1 when added now, 0 when this marker had been added before (nothing written).
 */
const ADD_TENANT_SPEND = `
-- Everything is checked before the first write: Redis does not undo a script that fails half-way,
-- and a marker recorded for an answer whose counters were not added would lose that spend.
for _, key in ipairs({KEYS[1], KEYS[2]}) do
  local kind = redis.call('TYPE', key).ok
  if kind ~= 'hash' and kind ~= 'none' then return redis.error_reply('bfAddTenantSpend: ' .. key .. ' is a ' .. kind .. ', not a hash') end
  for index = 5, #ARGV, 2 do
    local current = redis.call('HGET', key, ARGV[index])
    if current and not string.match(current, '^%d+$') then
      return redis.error_reply('bfAddTenantSpend: ' .. key .. ' ' .. ARGV[index] .. ' is not a whole number')
    end
  end
end
local markers = redis.call('TYPE', KEYS[3]).ok
if markers ~= 'set' and markers ~= 'none' then return redis.error_reply('bfAddTenantSpend: ' .. KEYS[3] .. ' is a ' .. markers .. ', not a set') end
if redis.call('SADD', KEYS[3], ARGV[1]) == 0 then return 0 end
redis.call('EXPIRE', KEYS[3], ARGV[4])
for index = 5, #ARGV, 2 do
  redis.call('HINCRBY', KEYS[1], ARGV[index], ARGV[index + 1])
  redis.call('HINCRBY', KEYS[2], ARGV[index], ARGV[index + 1])
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 1
`;

interface TenantSpendScripts {
  bfAddTenantSpend(
    day: string,
    month: string,
    applied: string,
    marker: string,
    dayTtl: number,
    monthTtl: number,
    markerTtl: number,
    ...pairs: Array<string | number>
  ): Promise<number>;
}

export function defineTenantSpendScripts(redis: RedisClient): TenantSpendScripts {
  return defineLuaCommands<TenantSpendScripts>(redis, { bfAddTenantSpend: { numberOfKeys: 3, lua: ADD_TENANT_SPEND } });
}

/** The {field, amount} pairs of a spend, zero amounts left out (HINCRBY by 0 would only add fields). */
export function spendIncrements(spend: { costMicroUsd: number; usage: UsageByClass }): Array<string | number> {
  const pairs: Array<string | number> = [];
  if (spend.costMicroUsd > 0) pairs.push(COST_FIELD, spend.costMicroUsd);
  for (const usageClass of USAGE_CLASSES) if (spend.usage[usageClass] > 0) pairs.push(usageClass, spend.usage[usageClass]);
  return pairs;
}

/** A tenant's spend in one period, as the engine reports it. */
export interface TenantSpendPeriod {
  /** `2026-11-23` for a day, `2026-11` for a month (UTC). */
  period: string;
  costMicroUsd: number;
  costUsd: number;
  usage: UsageByClass;
}

const storedCount = z
  .string()
  .regex(/^\d{1,16}$/, 'not a whole non-negative number')
  .transform(Number);

/** Decodes a period hash (HGETALL; empty when nothing was spent or it expired). A counter that is
 * not a whole number throws, naming the key and field. */
export function decodeTenantSpend({ key, period, fields }: { key: string; period: string; fields: Record<string, string> }): TenantSpendPeriod {
  const read = (field: string): number => {
    const raw = fields[field];
    if (raw === undefined) return 0;
    const parsed = storedCount.safeParse(raw);
    if (!parsed.success) throw new Error(`The tenant spend ${key} holds an invalid ${field}: ${JSON.stringify(raw)}`);
    return parsed.data;
  };
  const usage = Object.fromEntries(USAGE_CLASSES.map((usageClass) => [usageClass, read(usageClass)])) as UsageByClass;
  const costMicroUsd = read(COST_FIELD);
  return { period, costMicroUsd, costUsd: microUsdToUsd(costMicroUsd), usage };
}
