// A write tool's change to the run record (publish's live deployment, set_meta's metadata), made
// by the guarded Lua script so the kill switch, safe mode and the run's end are checked in the
// same step as the write, and the write is journaled.
import type { RunStore } from '../../runs/run-store.js';
import { defineToolScripts } from '../tool-scripts.js';
import { fenceArgs, fenceKeys, writeRefusalError, type WriteFence } from './write-fence.js';

/** Sets string fields of the run hash (plus updatedAt) or throws the fence's ToolError. */
export async function updateRunGuarded({
  store,
  runId,
  fields,
  kind,
  fence,
}: {
  store: RunStore;
  runId: string;
  fields: Record<string, string>;
  /** The journal entry's kind, e.g. 'publish'. */
  kind: string;
  fence: WriteFence;
}): Promise<void> {
  const outcome = await defineToolScripts(store.redis).bfUpdateRunFields(
    ...fenceKeys(store, runId),
    ...fenceArgs(fence),
    JSON.stringify({ ...fields, updatedAt: new Date().toISOString() }),
    kind,
  );
  if (outcome !== 'ok') throw writeRefusalError(outcome);
}
