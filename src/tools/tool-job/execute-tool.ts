// The tool itself (run-tool-job.ts): tool-call-start, the call's timeout, the tool's context, and
// its execute. What it throws is answered by answerToolFailure.
import { TYPESCRIPT_TOOL_TIMEOUT_MS } from '../../agents/index.js';
import { toolUseIdJobPart } from '../../jobs/job-catalog.js';
import type { ToolContext } from '../tool-types.js';
import { answerToolFailure } from './answer-tool-failure.js';
import type { CheckedToolCall, ToolCallContext, ToolJobResult } from './tool-call-context.js';

/** Runs the tool: its raw output (with the tool-call-start write to await before the result is
 * stored), or how the job ends after the tool threw. */
export async function executeTool({
  call,
  checked,
}: {
  call: ToolCallContext;
  checked: CheckedToolCall;
}): Promise<{ kind: 'output'; output: unknown; durationMs: number; startWrite: Promise<unknown> } | { kind: 'ended'; result: ToolJobResult }> {
  const { deps, data, run, job } = call;
  const { definition } = checked;
  const probeToken = checked.probe.token;
  // Not awaited here: it goes out on the engine's connection ahead of every write the tool makes
  // (same connection, so Redis applies them in order), and is awaited before the result is stored.
  const startWrite = call
    .emit('tool-call-start', {
      parse_mode: data.parseMode,
      attempt: job.attemptsMade + 1,
      ...(checked.claimedAtMs !== null ? { write_claimed_at_ms: checked.claimedAtMs } : {}),
      ...(probeToken ? { killswitch_probe: true } : {}),
    })
    .catch((error: unknown) =>
      deps.logger.warn({ run_id: data.runId, step: data.turn, err: error instanceof Error ? error.message : String(error) }, 'tool-call-start event lost'),
    );
  const controller = new AbortController();
  const timeout = setTimeout(() => controller.abort(new Error('tool timed out')), definition.timeoutMs ?? deps.timeoutMs ?? TYPESCRIPT_TOOL_TIMEOUT_MS.default);
  const started = performance.now();
  const context: ToolContext = {
    runId: data.runId,
    run,
    turn: data.turn,
    toolUseId: data.toolUseId,
    phase: run.phase,
    store: deps.store,
    config: deps.config,
    // Made on first use: a pino child serialises (and redacts) its bindings when it is created,
    // and most tools never log.
    get logger() {
      const logger = deps.logger.child({ run_id: data.runId, step: data.turn, tool: data.name });
      Object.defineProperty(context, 'logger', { value: logger });
      return logger;
    },
    signal: controller.signal,
    publicBaseUrl: deps.publicBaseUrl,
    // The call as the fence names it: its id when plain, else a hash of it (ids are any string the
    // model sent; a lone surrogate would not survive Redis's cjson, and the journal stays small).
    ...(definition.writes ? { writeFence: { tool: data.name, probeToken, callId: toolUseIdJobPart(data.toolUseId) } } : {}),
  };
  let output: unknown;
  try {
    output = await definition.execute(checked.input, context);
  } catch (error) {
    const durationMs = performance.now() - started;
    return { kind: 'ended', result: await answerToolFailure({ call, checked, error, thrownBy: 'tool', timedOut: controller.signal.aborted, durationMs }) };
  } finally {
    clearTimeout(timeout);
  }
  return { kind: 'output', output, durationMs: performance.now() - started, startWrite };
}
