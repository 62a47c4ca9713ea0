// An output that broke its contract (output/validate-tool-output.ts), answered by the tool's mode
// as decideToolFailure decided it:
//   fail_run  (fail_closed) the run stops: failed with error code invalid_tool_output;
//   degrade   the run continues in skip_writes safe mode, with the tool's last-known-good
//             output (marked degraded: true) where one is cached, else an is_error result.
import { type RunEvent, type StoredToolResult } from '../../engine/index.js';
import { wrapToolError } from '../../domain/tool-result-envelope.js';
import type { ToolOutputMode } from '../../domain/tool-output-modes.js';
import type { ToolOutputInvalid } from '../output/tool-output-invalid.js';
import { INVALID_TOOL_OUTPUT_RUN_ERROR } from '../decide-tool-failure.js';
import { flagInjection } from './flag-injection.js';
import { recordKillSwitchOutcome } from './record-kill-switch-outcome.js';
import { degradedOutput } from './degraded-output.js';
import type { CheckedToolCall, ToolCallContext, ToolJobResult } from './tool-call-context.js';

/** The stable error code of a tool_result whose output failed its contract. */
export const TOOL_OUTPUT_INVALID_CODE = 'ToolOutputInvalid';

/** The is_error tool_result of an output that failed its contract, saying what follows for the run. */
function invalidOutputResult({
  toolName,
  reason,
  message,
  consequence,
}: {
  toolName: string;
  reason: string;
  message: string;
  consequence: string;
}): StoredToolResult & { error_reason: string } {
  return {
    content: wrapToolError({
      toolName,
      label: `${TOOL_OUTPUT_INVALID_CODE}: ${reason}`,
      message: `${toolName} returned an invalid output. ${message} ${consequence}`,
    }),
    is_error: true,
    error_code: TOOL_OUTPUT_INVALID_CODE,
    error_reason: reason,
  };
}

/** Records the invalid outcome, then ends the run or degrades it, and records the call's result. */
export async function answerInvalidOutput({
  call,
  checked,
  error,
  mode,
  decision,
  durationMs,
}: {
  call: ToolCallContext;
  checked: CheckedToolCall;
  error: ToolOutputInvalid;
  mode: ToolOutputMode;
  decision: { kind: 'fail_run' } | { kind: 'degrade' };
  durationMs: number;
}): Promise<ToolJobResult> {
  const { deps, data, run } = call;
  const { store } = deps;
  const { reason } = error;
  deps.hooks?.onToolOutputInvalid?.(data.name, reason);
  for (const item of await recordKillSwitchOutcome({ call, checked, valid: false, reason })) await store.appendEvent(item);
  deps.logger.warn({ run_id: data.runId, step: data.turn, tool: data.name, reason, mode, err: error.message }, 'tool output invalid');
  await store.appendEvent({
    run_id: data.runId,
    step: data.turn,
    event: 'tool-output-reject',
    tool: data.name,
    tool_use_id: data.toolUseId,
    ok: false,
    error: TOOL_OUTPUT_INVALID_CODE,
    reason,
  });
  for (const item of flagInjection({ call, value: error.message, source: 'error' })) await store.appendEvent(item);
  const finish = async (result: StoredToolResult, extra: { degraded?: true }, endRunFirst?: (endEvent: RunEvent) => Promise<boolean>) => {
    const endEvent = call.event('tool-call-end', {
      ok: false,
      tool_result_status: 'error',
      parse_mode: data.parseMode,
      error_code: TOOL_OUTPUT_INVALID_CODE,
      reason,
      mode,
      ...extra,
      duration_ms: Math.round(durationMs),
    });
    // A run that ends here takes the call's end event into its own end step (run-end stays
    // last); a run that had ended already gets it with the ledger entry.
    const endedNow = endRunFirst ? await endRunFirst(endEvent) : false;
    const stored = await store.recordToolResult(
      data.runId,
      result,
      { ...call.trail, ok: false, detail: `${TOOL_OUTPUT_INVALID_CODE}:${reason}` },
      endedNow ? [] : [endEvent],
    );
    deps.hooks?.onToolResult?.({ tool: data.name, parseMode: data.parseMode, status: 'error', durationMs, errorCode: TOOL_OUTPUT_INVALID_CODE });
    return { kind: 'recorded', result: stored, cached: false } as const;
  };
  const errorResult = (consequence: string) => invalidOutputResult({ toolName: data.name, reason, message: error.message, consequence });
  if (decision.kind === 'fail_run') {
    // The run ends before the ledger entry is written: a worker dying in between leaves a
    // failed run whose retried job answers run_ended, never an open run that goes on.
    return finish(errorResult('Nothing was built from it, and the run is stopped.'), {}, async (endEvent) => {
      const message = `${data.name} returned an invalid output (${reason}): ${error.message}`;
      return store.endRun(data.runId, data.turn, 'failed', { error: { code: INVALID_TOOL_OUTPUT_RUN_ERROR, message } }, [
        endEvent,
        { event: 'run-stop', reason: INVALID_TOOL_OUTPUT_RUN_ERROR },
      ]);
    });
  }
  // degrade: from here on the run makes no writes; the switch to safe mode is announced once.
  if (run.safeMode !== 'skip_writes') {
    await store.updateRun(data.runId, { safeMode: 'skip_writes' }, [
      { run_id: data.runId, step: data.turn, event: 'run-stop', reason: INVALID_TOOL_OUTPUT_RUN_ERROR, safe_mode: 'skip_writes' },
    ]);
  }
  const degraded = await degradedOutput({ call, checked, reason });
  if (degraded) return finish(degraded, { degraded: true });
  return finish(errorResult('Nothing was built from it; the run continues in skip_writes safe mode, so write tools are refused.'), {});
}
