// The write fence of a tool effect: which tool writes and, while the kill switch is half-open,
// the probe token that lets exactly this write through. Every guarded effect script checks the
// fence in the same Lua step as its write and journals what it wrote (../effect-scripts.ts), so
// "no write landed after the kill switch tripped" holds per write, not per tool call.
import { writesKey } from '../effect-keys.js';
import { killSwitchScopesKey, runUpstreamsKey } from '../kill-switch-keys.js';
import { WRITE_REFUSALS, type FenceArgs, type FenceKeys, type WriteRefusalOutcome } from '../effect-scripts.js';
import type { RunEngine } from '../run-engine.js';

export interface WriteFence {
  tool: string;
  /** '' unless this call holds the kill switch's half-open probe. */
  probeToken: string;
}

/** Why a guarded write wrote nothing: the kill switch, the run's safe mode, or its end. */
export type WriteRefusal = WriteRefusalOutcome;

/** The fence of a write nobody named (direct callers, test seeding): journaled as tool 'unknown'. */
export const UNNAMED_WRITE_FENCE: Readonly<WriteFence> = Object.freeze({ tool: 'unknown', probeToken: '' });

const REFUSALS: ReadonlySet<string> = new Set(WRITE_REFUSALS);

export function isWriteRefusal(outcome: unknown): outcome is WriteRefusal {
  return typeof outcome === 'string' && REFUSALS.has(outcome);
}

/** The fence's keys of a run, in script order (engine-internal: the effects pass them on). */
export function fenceKeys(engine: RunEngine, runId: string): FenceKeys {
  return [engine.keys.killSwitch(), engine.keys.run(runId), writesKey(engine.keys, runId), killSwitchScopesKey(engine.keys), runUpstreamsKey(engine.keys, runId)];
}

/** The fence's arguments, in script order. */
export function fenceArgs(fence: WriteFence | undefined): FenceArgs {
  const resolved = fence ?? UNNAMED_WRITE_FENCE;
  return [resolved.probeToken, resolved.tool];
}
