// What the Redis server itself reports (INFO, https://redis.io/docs/latest/commands/info/):
// CPU used and commandstats. commandstats counts every command the server executed, including each
// redis.call inside a Lua script (BullMQ's scripts included) besides the EVALSHA that ran it — the
// server-side view, larger than the client-side count of count-redis-commands.ts.
import type { Redis } from 'ioredis';

export async function redisInfo(redis: Redis, part: string): Promise<Record<string, string>> {
  const text = await redis.info(part);
  const out: Record<string, string> = {};
  for (const line of text.split('\r\n')) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) out[line.slice(0, at)] = line.slice(at + 1);
  }
  return out;
}

/** used_cpu_sys + used_cpu_user of the server, seconds. */
export async function redisCpuSeconds(redis: Redis): Promise<number> {
  const cpu = await redisInfo(redis, 'cpu');
  return Number(cpu.used_cpu_sys ?? 0) + Number(cpu.used_cpu_user ?? 0);
}

/** Calls per command since the server started (or since CONFIG RESETSTAT), lower-case names. */
export async function commandCalls(redis: Redis): Promise<Record<string, number>> {
  const stats = await redisInfo(redis, 'commandstats');
  const calls: Record<string, number> = {};
  for (const [key, value] of Object.entries(stats)) {
    const match = /calls=(\d+)/.exec(value);
    // Subcommands appear as cmdstat_config|get; counted under their own name.
    if (match) calls[key.replace(/^cmdstat_/, '')] = Number(match[1]);
  }
  return calls;
}

/** after − before per command, minus the bench's own commands (`own`), never below 0. */
export function commandCallsDelta({
  after,
  before,
  own = {},
}: {
  after: Record<string, number>;
  before: Record<string, number>;
  own?: Record<string, number>;
}): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [command, count] of Object.entries(after)) {
    const value = count - (before[command] ?? 0) - (own[command] ?? 0);
    if (value > 0) delta[command] = value;
  }
  return delta;
}

export function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((sum, count) => sum + count, 0);
}

/** The `limit` largest entries divided by `per`, largest first. */
export function topPer({ counts, per, limit }: { counts: Record<string, number>; per: number; limit: number }): Array<{ command: string; perTurn: number }> {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([command, count]) => ({ command, perTurn: count / Math.max(1, per) }));
}
