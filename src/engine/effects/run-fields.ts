// A write tool's change to the run record — publish's live deployment, set_meta's metadata — made
// by the guarded script, so the kill switch, safe mode and the run's end are checked in the same
// step as the write, and the write is journaled (unlike RunEngine.updateRun, which is the
// workers' own bookkeeping and only refuses an ended run).
import { defineToolScripts } from '../effect-scripts.js';
import type { RunEngine } from '../run-engine.js';
import { toFields } from '../run-record.js';
import type { RunRecord } from '../run-types.js';
import { fenceArgs, fenceKeys, type WriteFence, type WriteRefusal } from './write-fence.js';

/** The run fields a write tool may change: liveDeploy (journaled as 'publish') or meta ('meta'). */
export type ToolRunFields = { liveDeploy: string } | { meta: NonNullable<RunRecord['meta']> };

/** Sets the fields (plus updatedAt): 'ok', or the fence's refusal and nothing written. */
export async function updateRunFields({
  engine,
  runId,
  fields,
  fence,
}: {
  engine: RunEngine;
  runId: string;
  fields: ToolRunFields;
  fence?: WriteFence | undefined;
}): Promise<'ok' | WriteRefusal> {
  const kind = 'liveDeploy' in fields ? 'publish' : 'meta';
  return defineToolScripts(engine.redis).bfUpdateRunFields(
    ...fenceKeys(engine, runId),
    ...(await fenceArgs(engine, fence)),
    JSON.stringify(toFields({ ...fields, updatedAt: new Date().toISOString() })),
    kind,
  );
}
