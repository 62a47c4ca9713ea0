// A run's generated assets (regen_og's og-image.svg): served by the site server beside every
// deployment rather than stored in the workspace, so they can change without a redeploy. Written
// through the guarded script like every other write-tool effect.
import { defineToolScripts } from '../effect-scripts.js';
import { assetsKey } from '../effect-keys.js';
import type { RunEngine } from '../run-engine.js';
import { fenceArgs, fenceKeys, type WriteFence, type WriteRefusal } from './write-fence.js';

/** Stores one asset under its name: 'ok', or the fence's refusal and nothing written. */
export async function setRunAsset({
  engine,
  runId,
  name,
  content,
  fence,
}: {
  engine: RunEngine;
  runId: string;
  name: string;
  content: string;
  fence?: WriteFence | undefined;
}): Promise<'ok' | WriteRefusal> {
  return defineToolScripts(engine.redis).bfSetHashField(
    ...fenceKeys(engine, runId),
    assetsKey(engine.keys, runId),
    ...(await fenceArgs(engine, fence)),
    name,
    content,
    'asset',
  );
}

/** One asset's content, or null when the run has none of that name. */
export async function readRunAsset({ engine, runId, name }: { engine: RunEngine; runId: string; name: string }): Promise<string | null> {
  return engine.redis.hget(assetsKey(engine.keys, runId), name);
}
