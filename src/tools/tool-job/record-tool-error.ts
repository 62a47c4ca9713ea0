// A call answered with an is_error result (a refusal, a tool error, an outcome that cannot be
// known, attempts run out): recorded in the ledger with its trail entry and tool-call-end.
import { type StoredToolResult } from '../../engine/index.js';
import type { ToolErrorCode } from '../../domain/tool-error-codes.js';
import { wrapToolError } from '../../domain/tool-result-envelope.js';
import { flagInjection } from './flag-injection.js';
import type { ToolCallContext, ToolJobResult } from './tool-call-context.js';

const REFUSAL_CODES: Record<string, 'killswitch' | 'safe_mode'> = { killswitch_read_only: 'killswitch', safe_mode_skip_writes: 'safe_mode' };

/** Records the call's error result under `code`. */
export async function recordToolError({
  call,
  code,
  message,
  durationMs = 0,
}: {
  call: ToolCallContext;
  code: ToolErrorCode;
  message: string;
  durationMs?: number;
}): Promise<ToolJobResult> {
  const { deps, data } = call;
  const cause = REFUSAL_CODES[code];
  if (cause) deps.hooks?.onWriteRefused?.(data.name, cause);
  const flagged = flagInjection({ call, value: message, source: 'error' });
  // Error results are wrapped like outputs: their messages quote upstream strings (URLs,
  // headers, network errors), and the model must read all of it as data.
  const result: StoredToolResult = { content: wrapToolError({ toolName: data.name, label: code, message }), is_error: true, error_code: code };
  const stored = await deps.store.recordToolResult(data.runId, result, { ...call.trail, ok: false, detail: code }, [
    ...flagged,
    call.event('tool-call-end', {
      ok: false,
      tool_result_status: 'error',
      parse_mode: data.parseMode,
      error_code: code,
      message,
      duration_ms: Math.round(durationMs),
    }),
  ]);
  deps.hooks?.onToolResult?.({ tool: data.name, parseMode: data.parseMode, status: 'error', durationMs, errorCode: code });
  return { kind: 'recorded', result: stored, cached: false };
}
