// What was thrown during a tool call, classified once for decideToolFailure (decide-tool-failure.ts).
import { ClaimNotDurableError } from '../engine/index.js';
import type { ToolOutputMode } from '../domain/tool-output-modes.js';
import { ToolError } from '../domain/tool-error.js';
import { ToolOutputInvalid } from './output/tool-output-invalid.js';
import type { ToolFailure } from './decide-tool-failure.js';

/** Classifies `error`. `thrownBy: 'tool'` is the tool's own execute (a ToolError is its answer, anything
 * else a crash); `'fleet'` is everything around it (the output validator, Redis, the worker). */
export function classifyToolFailure({
  error,
  thrownBy,
  timedOut,
  outputMode,
}: {
  error: unknown;
  thrownBy: 'tool' | 'fleet';
  /** The call's timeout had aborted the tool when it threw. */
  timedOut: boolean;
  /** The tool's output mode, for an output that broke its contract. */
  outputMode: ToolOutputMode;
}): ToolFailure {
  if (ToolOutputInvalid.isInstance(error)) return { kind: 'output_invalid', mode: outputMode };
  if (thrownBy === 'tool' && ToolError.isInstance(error)) return { kind: 'tool_error', code: error.code, message: error.message };
  if (error instanceof ClaimNotDurableError) return { kind: 'claim_not_durable' };
  if (thrownBy === 'tool') return { kind: 'tool_crash', message: error instanceof Error ? error.message : String(error), timedOut };
  return { kind: 'infrastructure' };
}
