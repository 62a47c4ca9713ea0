// A degraded call's result (answer-invalid-output.ts): the tool's last-known-good output for the
// same input, marked degraded, where its contract keeps one.
import { type StoredToolResult } from '../../engine/index.js';
import { MAX_ENVELOPE_BODY_CHARACTERS, wrapToolOutput } from '../../domain/tool-result-envelope.js';
import { lastKnownGoodScopeOf } from '../output/last-known-good.js';
import type { CheckedToolCall, ToolCallContext } from './tool-call-context.js';

/** The last-known-good output as the call's result, or null when there is none. */
export async function degradedOutput({
  call,
  checked,
  reason,
}: {
  call: ToolCallContext;
  checked: CheckedToolCall;
  reason: string;
}): Promise<StoredToolResult | null> {
  const { deps, data } = call;
  const { definition } = checked;
  const scope = lastKnownGoodScopeOf({ writes: definition.writes, scope: definition.output.lastKnownGood });
  const lastGood = scope === 'never' ? null : await deps.store.loadLastKnownGood({ tool: data.name, input: checked.input, runId: data.runId, scope });
  if (lastGood === null) return null;
  const degraded = {
    ...(typeof lastGood === 'object' && !Array.isArray(lastGood) ? (lastGood as Record<string, unknown>) : { value: lastGood }),
    degraded: true,
    degraded_reason: reason,
  };
  return { content: wrapToolOutput(data.name, degraded, { maxCharacters: MAX_ENVELOPE_BODY_CHARACTERS }), is_error: false, output: degraded };
}
