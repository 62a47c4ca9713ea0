// A tool call that threw (run-tool-job.ts): classified, decided by decideToolFailure, and the
// decision carried out — a result recorded, the run ended or degraded, or the job handed back to
// the tool worker to retry or wait.
import { assertNever } from '../../domain/assert-never.js';
import { resolveToolOutputMode } from '../../domain/tool-output-modes.js';
import { ToolOutputInvalid } from '../output/tool-output-invalid.js';
import { classifyToolFailure } from '../classify-tool-failure.js';
import { decideToolFailure, NOT_DURABLE_PATIENCE_MS, NOT_DURABLE_RETRY_MS } from '../decide-tool-failure.js';
import { answerInvalidOutput } from './answer-invalid-output.js';
import { recordToolError } from './record-tool-error.js';
import type { CheckedToolCall, ToolCallContext, ToolJobResult } from './tool-call-context.js';

/** Decides and carries out what the call does about `error`. */
export async function answerToolFailure({
  call,
  checked,
  error,
  thrownBy,
  timedOut,
  durationMs,
}: {
  call: ToolCallContext;
  checked: CheckedToolCall;
  error: unknown;
  thrownBy: 'tool' | 'fleet';
  timedOut: boolean;
  durationMs: number;
}): Promise<ToolJobResult> {
  const { deps, data, job } = call;
  const outputMode = resolveToolOutputMode({
    tool: checked.toolName,
    defaultMode: checked.definition.output.mode,
    configured: deps.config.BUILDFLEET_TOOL_OUTPUT_MODES,
  });
  const decision = decideToolFailure({
    failure: classifyToolFailure({ error, thrownBy, timedOut, outputMode }),
    toolName: data.name,
    idempotent: checked.definition.idempotent,
    attemptsMade: job.attemptsMade,
    maxAttempts: job.maxAttempts,
    jobAgeMs: job.createdAtMs === undefined ? Number.POSITIVE_INFINITY : Date.now() - job.createdAtMs,
    mayDelay: job.mayDelay ?? false,
    notDurablePatienceMs: NOT_DURABLE_PATIENCE_MS,
    notDurableRetryMs: NOT_DURABLE_RETRY_MS,
  });
  switch (decision.kind) {
    case 'result_error':
      return recordToolError({ call, code: decision.code, message: decision.message, durationMs });
    case 'fail_run':
    case 'degrade':
      if (!ToolOutputInvalid.isInstance(error)) throw error;
      return answerInvalidOutput({ call, checked, error, mode: outputMode, decision, durationMs });
    case 'retry':
      if (decision.announce)
        await call.emit('tool-call-retry', { level: 'warn', message: error instanceof Error ? error.message : String(error), attempt: job.attemptsMade + 1 });
      return { kind: 'retry', error };
    case 'defer':
      return { kind: 'defer', delayMs: decision.delayMs, error };
    default:
      return assertNever(decision);
  }
}
