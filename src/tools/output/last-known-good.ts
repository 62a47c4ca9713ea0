// Last-known-good outputs: every validated output of a tool that may be reused is cached for an
// hour under its tool and a hash of its input (and of the run, for run-scoped tools), so that in
// degrade mode an invalid output can be answered with the last valid one, marked degraded.
// Write tools never use it: their output describes an effect this call did not have.
import { redactValue } from '../../telemetry/redact-secrets.js';
import { createHash } from 'node:crypto';
import type { RedisClient } from '../../redis/redis-connection.js';
import type { KeySpace } from '../../engine/index.js';
import type { LastKnownGoodScope } from './output-contract.js';

export const LAST_KNOWN_GOOD_TTL_MS = 3_600_000;

/** JSON with object keys sorted at every level, so equal inputs hash equally. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The scope in force: write tools never, others per their contract (default per_run). */
export function lastKnownGoodScopeOf({ writes, scope }: { writes: boolean; scope: LastKnownGoodScope | undefined }): LastKnownGoodScope {
  return writes ? 'never' : (scope ?? 'per_run');
}

/** `<prefix>:lkg:<tool>:<sha256 of the input, and of the run id when per_run>` */
export function lastKnownGoodKey({ keys, tool, input, runId, scope }: { keys: KeySpace; tool: string; input: unknown; runId: string; scope: LastKnownGoodScope }): string {
  const material = scope === 'per_run' ? canonicalJson({ run: runId, input }) : canonicalJson({ input });
  return `${keys.prefix}:lkg:${tool}:${createHash('sha256').update(material).digest('hex')}`;
}

export async function saveLastKnownGood({ redis, key, output }: { redis: RedisClient; key: string; output: unknown }): Promise<void> {
  await redis.set(key, JSON.stringify(redactValue(output)), 'PX', LAST_KNOWN_GOOD_TTL_MS);
}

export async function loadLastKnownGood({ redis, key }: { redis: RedisClient; key: string }): Promise<unknown | null> {
  const raw = await redis.get(key);
  return raw === null ? null : (JSON.parse(raw) as unknown);
}
