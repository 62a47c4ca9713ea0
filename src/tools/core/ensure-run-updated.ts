// Run updates from tools must land: updateRun refuses a run that already ended (cancelled while
// the tool ran), and the model should hear that rather than a success that did not happen.
import type { RunRecord, RunEngine } from '../../engine/index.js';
import { ToolError } from '../tool-types.js';

/** Applies a run update or throws ToolError('run_ended'). */
export async function ensureRunUpdated({ store, runId, update }: { store: RunEngine; runId: string; update: Partial<RunRecord> }): Promise<void> {
  if (!(await store.updateRun(runId, update))) {
    throw new ToolError('run_ended', 'The run has already ended, so this change was not applied.');
  }
}
