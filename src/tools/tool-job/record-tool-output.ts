// A tool's output (run-tool-job.ts): validated against its contract, its outcome recorded in the
// kill switch and its last-known-good copy saved, then recorded in the ledger as the call's result.
import { type StoredToolResult } from '../../engine/index.js';
import { MAX_ENVELOPE_BODY_CHARACTERS, wrapToolOutput } from '../../domain/tool-result-envelope.js';
import { lastKnownGoodScopeOf } from '../output/last-known-good.js';
import { validateToolOutput } from '../output/validate-tool-output.js';
import { answerToolFailure } from './answer-tool-failure.js';
import { flagInjection } from './flag-injection.js';
import { applyPhaseTransition } from './apply-phase-transition.js';
import { recordKillSwitchOutcome } from './record-kill-switch-outcome.js';
import type { CheckedToolCall, ToolCallContext, ToolJobResult } from './tool-call-context.js';

/** Validates and records the output; an output that breaks its contract is answered by its mode. */
export async function recordToolOutput({
  call,
  checked,
  output,
  durationMs,
  startWrite,
}: {
  call: ToolCallContext;
  checked: CheckedToolCall;
  output: unknown;
  durationMs: number;
  startWrite: Promise<unknown>;
}): Promise<ToolJobResult> {
  const { deps, data } = call;
  const { definition } = checked;
  let value: unknown;
  try {
    value = validateToolOutput({
      output,
      contract: definition.output,
      context: { runId: data.runId, toolUseId: data.toolUseId, input: checked.input, publicBaseUrl: deps.publicBaseUrl },
    });
  } catch (error) {
    return answerToolFailure({ call, checked, error, thrownBy: 'fleet', timedOut: false, durationMs });
  }
  // The outcome (kill switch, fleet-wide keys) and the last-known-good copy (its own key) are
  // independent, so they go out together and are awaited together: one round trip of waiting,
  // not two. Not one pipeline or script: their keys are in different Cluster slots, and the
  // ledger entry must wait for the outcome's events anyway. The outcome is still recorded after
  // validation and before the ledger entry, as before (a crash in between re-records it on the
  // retry rather than losing it).
  const scope = lastKnownGoodScopeOf({ writes: definition.writes, scope: definition.output.lastKnownGood });
  const [outcomeEvents] = await Promise.all([
    recordKillSwitchOutcome({ call, checked, valid: true }),
    scope === 'never' ? undefined : deps.store.saveLastKnownGood({ tool: data.name, input: checked.input, runId: data.runId, scope, output: value }),
    startWrite,
  ]);
  await applyPhaseTransition({ call, output: value });
  const flagged = flagInjection({ call, value, source: 'output' });
  // The cap applies inside the envelope, so the closing tag always survives (32,000 in all).
  const content = wrapToolOutput(data.name, value, { maxCharacters: MAX_ENVELOPE_BODY_CHARACTERS });
  const result: StoredToolResult = { content, is_error: false, output: value };
  // The scopes this outcome tripped or settled and the injection flag go into the stream with
  // the ledger entry, in the order they used to be appended one by one, before tool-call-end.
  // (Were this call answered already by a concurrent attempt, the script writes none of them,
  // like tool-call-end; the kill switch has still logged the trip.)
  // tool_result_status and parse_mode: the text-recovery telemetry's last two fields, on the
  // call's own end event, so a recovered call's result can be told from a native one's per run
  // (the same values as buildfleet_tool_calls_total's labels).
  const empty = value === null || value === undefined || (typeof value === 'object' && Object.keys(value as object).length === 0);
  const status = empty ? 'empty' : 'ok';
  const stored = await deps.store.recordToolResult(data.runId, result, { ...call.trail, ok: true }, [
    ...outcomeEvents,
    ...flagged,
    call.event('tool-call-end', { ok: true, tool_result_status: status, parse_mode: data.parseMode, duration_ms: Math.round(durationMs) }),
  ]);
  deps.hooks?.onToolResult?.({ tool: data.name, parseMode: data.parseMode, status, durationMs });
  return { kind: 'recorded', result: stored, cached: false, writes: definition.writes };
}
