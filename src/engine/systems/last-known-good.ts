// Last-known-good outputs as the engine keeps them: every validated output of a tool that may be
// reused is cached for an hour under its tool and a hash of its input (and of the run, for
// run-scoped tools), so that in degrade mode an invalid output can be answered with the last valid
// one, marked degraded (src/tools/output/last-known-good.ts says which tools, src/tools/run-tool-job.ts
// when). The key is the engine's: `<prefix>:lkg:<tool>:<sha256 of the input, and of the run id when
// per_run>`.
import { createHash } from 'node:crypto';
import type { KeySpace } from '../keys.js';

export const LAST_KNOWN_GOOD_TTL_MS = 3_600_000;

/** Where a cached output may be reused: only for the same run, or by any run of the fleet. */
export type LastKnownGoodReuse = 'per_run' | 'fleet_wide';

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

/** `<prefix>:lkg:<tool>:<sha256 of the input, and of the run id when per_run>` */
export function lastKnownGoodKey({
  keys,
  tool,
  input,
  runId,
  scope,
}: {
  keys: KeySpace;
  tool: string;
  input: unknown;
  runId: string;
  scope: LastKnownGoodReuse;
}): string {
  const material = scope === 'per_run' ? canonicalJson({ run: runId, input }) : canonicalJson({ input });
  return `${keys.prefix}:lkg:${tool}:${createHash('sha256').update(material).digest('hex')}`;
}
