// One tool call, as the tool worker runs it: ledger first (a re-run returns the recorded
// result), then the run's state and the write guards, then the tool. Tool failures become
// is_error results; infrastructure failures throw so the queue retries them.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { ToolJobData } from '../queues/job-catalog.js';
import type { RunStore, StoredToolResult } from '../runs/run-store.js';
import type { RunRecord } from '../runs/run-types.js';
import { isToolName } from '../agent/profile.js';
import { toolDefinitions } from './tool-catalog.js';
import { capToolResultContent, wrapToolOutput } from './result-envelope.js';
import { ToolError, type ToolContext } from './tool-types.js';

export interface ToolJobDependencies {
  store: RunStore;
  config: Config;
  logger: Logger;
  publicBaseUrl: string;
  /** Asked before every write tool starts; returns a refusal reason or null. */
  writeGuard?: (run: RunRecord, toolName: string) => Promise<string | null>;
  hooks?: ToolJobHooks;
  timeoutMs?: number;
}

export interface ToolJobHooks {
  onToolResult?(details: { tool: string; parseMode: string; status: 'ok' | 'empty' | 'error'; durationMs: number; errorCode?: string }): void;
}

export type ToolJobResult = { kind: 'recorded'; result: StoredToolResult; cached: boolean } | { kind: 'skipped'; reason: string };

export async function runToolJob(deps: ToolJobDependencies, data: ToolJobData, job: { attemptsMade: number; maxAttempts: number }): Promise<ToolJobResult> {
  const { store } = deps;
  const cached = await store.getStoredToolResult(data.runId, data.toolUseId);
  if (cached) return { kind: 'recorded', result: cached, cached: true };
  const run = await store.getRun(data.runId);
  if (!run) return { kind: 'skipped', reason: 'run_missing' };
  const emit = (event: string, fields: Record<string, unknown>) =>
    store.appendEvent({ run_id: data.runId, step: data.turn, event, tool: data.name, tool_use_id: data.toolUseId, ...fields });
  const trail = { tool: data.name, phase: run.phase, turn: data.turn, toolUseId: data.toolUseId };
  const fail = async (code: string, message: string, durationMs = 0) => {
    const result: StoredToolResult = { content: capToolResultContent(`Error (${code}): ${message}`), is_error: true, error_code: code };
    const stored = await store.recordToolResult(data.runId, result, { ...trail, ok: false, detail: code });
    await emit('tool-call-end', { ok: false, error_code: code, message, duration_ms: Math.round(durationMs) });
    deps.hooks?.onToolResult?.({ tool: data.name, parseMode: data.parseMode, status: 'error', durationMs, errorCode: code });
    return { kind: 'recorded', result: stored, cached: false } as const;
  };

  if (store.isTerminalStatus(run.status)) return fail('run_ended', `The run is ${run.status}; the tool was not run.`);
  if (!isToolName(data.name)) return fail('tool_not_available', `Unknown tool "${data.name}".`);
  const definition = toolDefinitions[data.name];
  const parsed = definition.inputSchema.safeParse(data.input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`);
    return fail('tool_input_invalid', problems.join('; '));
  }
  if (definition.writes) {
    if (run.safeMode === 'skip_writes') {
      return fail('safe_mode_skip_writes', 'The run is in skip_writes safe mode after an invalid tool output: write tools are refused.');
    }
    const refusal = deps.writeGuard ? await deps.writeGuard(run, data.name) : null;
    if (refusal) return fail('killswitch_read_only', refusal);
  }

  await emit('tool-call-start', { parse_mode: data.parseMode, attempt: job.attemptsMade + 1 });
  const controller = new AbortController();
  const timeout = setTimeout(() => controller.abort(new Error('tool timed out')), deps.timeoutMs ?? 60_000);
  const started = performance.now();
  const context: ToolContext = {
    runId: data.runId,
    run,
    turn: data.turn,
    toolUseId: data.toolUseId,
    phase: run.phase,
    store,
    config: deps.config,
    logger: deps.logger.child({ run_id: data.runId, step: data.turn, tool: data.name }),
    signal: controller.signal,
    publicBaseUrl: deps.publicBaseUrl,
  };
  let output: unknown;
  try {
    output = await definition.execute(parsed.data, context);
  } catch (error) {
    const durationMs = performance.now() - started;
    if (ToolError.isInstance(error)) return fail(error.code, error.message, durationMs);
    if (controller.signal.aborted && !definition.idempotent) {
      return fail('tool_outcome_unknown', `${data.name} timed out after it started; it is not safe to run again, so its outcome is unknown.`, durationMs);
    }
    if (job.attemptsMade + 1 >= job.maxAttempts) {
      return fail('tool_infrastructure_error', `${data.name} failed ${job.attemptsMade + 1} times: ${error instanceof Error ? error.message : String(error)}`, durationMs);
    }
    await emit('tool-call-retry', { level: 'warn', message: error instanceof Error ? error.message : String(error), attempt: job.attemptsMade + 1 });
    throw error;
  } finally {
    clearTimeout(timeout);
  }
  const durationMs = performance.now() - started;
  // The cap applies inside the envelope, so the closing tag always survives (32,000 in all).
  const content = wrapToolOutput(data.name, output, { maxCharacters: 31_800 });
  const result: StoredToolResult = { content, is_error: false, output };
  const stored = await store.recordToolResult(data.runId, result, { ...trail, ok: true });
  const empty = output === null || output === undefined || (typeof output === 'object' && Object.keys(output as object).length === 0);
  await emit('tool-call-end', { ok: true, duration_ms: Math.round(durationMs) });
  deps.hooks?.onToolResult?.({ tool: data.name, parseMode: data.parseMode, status: empty ? 'empty' : 'ok', durationMs });
  return { kind: 'recorded', result: stored, cached: false };
}
