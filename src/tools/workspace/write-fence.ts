// The tool side of the write fence (src/engine/effects/write-fence.ts): the fence a tool call
// writes under, and the ToolError each refusal of the guarded write scripts becomes.
import { UNNAMED_WRITE_FENCE, type WriteFence, type WriteRefusal } from '../../engine/index.js';
import { assertNever } from '../../domain/assert-never.js';
import { ToolError } from '../../domain/tool-error.js';

/** The fence of a tool call (the tool worker sets it; direct callers get an unnamed one). */
export function writeFenceOf(context: { writeFence?: WriteFence | undefined }): WriteFence {
  return context.writeFence ?? UNNAMED_WRITE_FENCE;
}

/** The ToolError a fence refusal becomes. */
export function writeRefusalError(refusal: WriteRefusal): ToolError {
  switch (refusal) {
    case 'killswitch_read_only':
      return new ToolError(
        'killswitch_read_only',
        'A kill switch that covers this write is read-only — the fleet-wide one, the one of this ' +
          "run's tenant, or the one of an upstream this run read from (too many invalid tool outputs, " +
          'or an operator): write tools are refused and nothing was written. Reads still work.',
      );
    case 'safe_mode_skip_writes':
      return new ToolError(
        'safe_mode_skip_writes',
        'The run is in skip_writes safe mode after an invalid tool output: write tools are refused and nothing was written.',
      );
    case 'run_ended':
      return new ToolError('run_ended', 'The run has already ended, so nothing was written.');
    default:
      return assertNever(refusal, 'unknown write refusal');
  }
}
