// Tool output is data, and so is an error that quotes an upstream: what looks like an injected
// instruction is kept (the envelope marks it untrusted) and flagged in the run's events and the
// metric. `source` says whether it was in an output or in an error result.
import { type RunEvent } from '../../engine/index.js';
import { detectInjectionInValue } from '../output/detect-injection.js';
import type { ToolCallContext } from './tool-call-context.js';

/** The flag's event, if the value looks injected. Returned rather than appended, so that it goes
 * into the stream with the ledger entry (one round trip instead of an XADD of its own; it still
 * precedes tool-call-end). */
export function flagInjection({
  call,
  value,
  source,
}: {
  call: Pick<ToolCallContext, 'deps' | 'data'>;
  value: unknown;
  source: 'output' | 'error';
}): RunEvent[] {
  const { deps, data } = call;
  const patterns = detectInjectionInValue(value);
  if (patterns.length === 0) return [];
  deps.hooks?.onInjectionFlagged?.(data.name, patterns);
  deps.logger.warn({ run_id: data.runId, step: data.turn, tool: data.name, patterns, source }, 'tool result looks like an injected instruction');
  return [
    {
      run_id: data.runId,
      step: data.turn,
      event: 'tool-output-injection-flag',
      tool: data.name,
      tool_use_id: data.toolUseId,
      patterns,
      ...(source === 'error' ? { source } : {}),
    },
  ];
}
