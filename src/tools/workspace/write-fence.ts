// What a write tool passes to the guarded write scripts (tool-scripts.ts): which tool writes and,
// when the kill switch is half-open, the probe token that lets exactly this write through.
import type { RunStore } from '../../runs/run-store.js';
import { writesKey } from '../tool-keys.js';
import type { FenceArgs, FenceKeys, WriteRefusalOutcome } from '../tool-scripts.js';
import { ToolError } from '../tool-types.js';

export interface WriteFence {
  tool: string;
  /** '' unless this call holds the kill switch's half-open probe. */
  probeToken: string;
}

const UNNAMED: WriteFence = { tool: 'unknown', probeToken: '' };

/** The fence of a tool call (the tool worker sets it; direct callers get an unnamed one). */
export function writeFenceOf(context: { writeFence?: WriteFence | undefined }): WriteFence {
  return context.writeFence ?? UNNAMED;
}

/** The fence keys of a run, in script order. */
export function fenceKeys(store: RunStore, runId: string): FenceKeys {
  return [store.keys.killSwitch(), store.keys.run(runId), writesKey(store.keys, runId)];
}

export function fenceArgs(fence: WriteFence | undefined): FenceArgs {
  const resolved = fence ?? UNNAMED;
  return [resolved.probeToken, resolved.tool];
}

const REFUSALS: ReadonlySet<string> = new Set<WriteRefusalOutcome>(['killswitch_read_only', 'run_ended', 'safe_mode_skip_writes']);

export function isWriteRefusal(outcome: unknown): outcome is WriteRefusalOutcome {
  return typeof outcome === 'string' && REFUSALS.has(outcome);
}

/** The ToolError a fence refusal becomes. */
export function writeRefusalError(refusal: WriteRefusalOutcome): ToolError {
  switch (refusal) {
    case 'killswitch_read_only':
      return new ToolError(
        'killswitch_read_only',
        'The fleet-wide kill switch is read-only (too many invalid tool outputs, or an operator): write tools are refused and nothing was written. Reads still work.',
      );
    case 'safe_mode_skip_writes':
      return new ToolError(
        'safe_mode_skip_writes',
        'The run is in skip_writes safe mode after an invalid tool output: write tools are refused and nothing was written.',
      );
    case 'run_ended':
      return new ToolError('run_ended', 'The run has already ended, so nothing was written.');
  }
}
