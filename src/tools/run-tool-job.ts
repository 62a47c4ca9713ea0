// One tool call, as the tool worker runs it: ledger first (a re-run returns the recorded
// result), then the run's state and the write guards (skip_writes safe mode, the kill switch),
// then the tool, then its output contract. Tool failures become is_error results, wrapped as
// untrusted data like outputs (src/domain/tool-result-envelope.ts); infrastructure failures throw
// so the queue retries them.
//
// Output contracts (output/validate-tool-output.ts): every output is validated before the model
// sees it, and every validated outcome is recorded in the kill switch's window. An invalid output
// is answered by the tool's mode (its contract's default, or BUILDFLEET_TOOL_OUTPUT_MODES):
//   fail_closed  the run stops: failed with error code invalid_tool_output;
//   degrade      the run continues in skip_writes safe mode, with the tool's last-known-good
//                output (marked degraded: true) where one is cached, else an is_error result.
// Trace lines (the run's event stream):
//   {event:'tool-output-reject', tool, tool_use_id, ok:false, error:'ToolOutputInvalid', reason}
//   {event:'run-stop', reason:'invalid_tool_output'}                        fail_closed
//   {event:'run-stop', reason:'invalid_tool_output', safe_mode:'skip_writes'} degrade (the run goes on)
//   {event:'tool-output-injection-flag', tool, tool_use_id, patterns[, source:'error']}  flagged, not dropped
//   {event:'killswitch-trip', tool, reason, scope, scope_id, cause, window, ...}  this output tripped a scope
//   {event:'killswitch-probe', tool, outcome, mode, scope, scope_id}     this probe write settled a scope
import { ClaimNotDurableError, type RunEngine, type RunEvent, type StoredToolResult, type RunRecord } from '../engine/index.js';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { toolUseIdJobPart, type ToolJobData } from '../jobs/job-catalog.js';
import type { RunEventName } from '../domain/run-events.js';
import { isToolName } from '../domain/profile.js';
import { isTerminal } from '../domain/run-outcomes.js';
import type { ToolErrorCode } from '../domain/tool-error-codes.js';
import { formatZodIssues } from '../domain/format-zod-issues.js';
import { describeRefusal, type KillSwitch } from '../safety/kill-switch.js';
import { upstreamOf } from '../safety/kill-switch-scope.js';
import type { ToolSafetyHooks } from '../safety/safety-hooks.js';
import { detectInjectionInValue } from './output/detect-injection.js';
import { lastKnownGoodScopeOf } from './output/last-known-good.js';
import { resolveToolOutputMode } from '../domain/tool-output-modes.js';
import { ToolOutputInvalid } from './output/tool-output-invalid.js';
import { validateToolOutput } from './output/validate-tool-output.js';
import { toolImplementations as toolDefinitions } from './tool-implementations.js';
import { MAX_ENVELOPE_BODY_CHARACTERS, wrapToolError, wrapToolOutput } from '../domain/tool-result-envelope.js';
import { quoteUntrusted } from '../domain/quote-untrusted.js';
import { ToolError, type ToolContext } from './tool-types.js';

export interface ToolJobDependencies {
  store: RunEngine;
  config: Config;
  logger: Logger;
  publicBaseUrl: string;
  /** Asked before every write tool starts; returns a refusal reason or null. */
  writeGuard?: (run: RunRecord, toolName: string) => Promise<string | null>;
  /** The scoped kill switch: claims writes, records validated outputs. Without it nothing is
   * recorded, but the guarded write scripts still refuse writes while a scope is read_only. */
  killSwitch?: KillSwitch;
  hooks?: ToolJobHooks;
  timeoutMs?: number;
}

export interface ToolJobHooks extends ToolSafetyHooks {
  onToolResult?(details: { tool: string; parseMode: string; status: 'ok' | 'empty' | 'error'; durationMs: number; errorCode?: string }): void;
}

export type ToolJobResult = { kind: 'recorded'; result: StoredToolResult; cached: boolean } | { kind: 'skipped'; reason: string };

/** The stable error code of a tool_result whose output failed its contract. */
export const TOOL_OUTPUT_INVALID_CODE = 'ToolOutputInvalid' satisfies ToolErrorCode;
/** The run error code of a run stopped by a fail_closed contract. */
export const INVALID_TOOL_OUTPUT_RUN_ERROR = 'invalid_tool_output';

const REFUSAL_CODES: Record<string, 'killswitch' | 'safe_mode'> = { killswitch_read_only: 'killswitch', safe_mode_skip_writes: 'safe_mode' };

export async function runToolJob(deps: ToolJobDependencies, data: ToolJobData, job: { attemptsMade: number; maxAttempts: number }): Promise<ToolJobResult> {
  const { store } = deps;
  // The recorded result (a re-run returns it) or the run, in one round trip.
  const loaded = await store.loadToolCall(data.runId, data.toolUseId);
  if (loaded === 'missing') return { kind: 'skipped', reason: 'run_missing' };
  if ('recorded' in loaded) return { kind: 'recorded', result: loaded.recorded, cached: true };
  const { run } = loaded;
  const event = (name: RunEventName, fields: Record<string, unknown>): RunEvent => ({ run_id: data.runId, step: data.turn, event: name, tool: data.name, tool_use_id: data.toolUseId, ...fields });
  const emit = (name: RunEventName, fields: Record<string, unknown>) => store.appendEvent(event(name, fields));
  const trail = { tool: data.name, phase: run.phase, turn: data.turn, toolUseId: data.toolUseId };
  // Tool output is data, and so is an error that quotes an upstream: what looks like an injected
  // instruction is kept (the envelope marks it untrusted) and flagged in the run's events and the
  // metric. `source` says whether it was in an output or in an error result. Returns the event
  // rather than appending it, so that it goes into the stream with the ledger entry (one round
  // trip instead of an XADD of its own; it still precedes tool-call-end).
  const flagInjection = (value: unknown, source: 'output' | 'error'): RunEvent[] => {
    const patterns = detectInjectionInValue(value);
    if (patterns.length === 0) return [];
    deps.hooks?.onInjectionFlagged?.(data.name, patterns);
    deps.logger.warn({ run_id: data.runId, step: data.turn, tool: data.name, patterns, source }, 'tool result looks like an injected instruction');
    return [{ run_id: data.runId, step: data.turn, event: 'tool-output-injection-flag', tool: data.name, tool_use_id: data.toolUseId, patterns, ...(source === 'error' ? { source } : {}) }];
  };
  // For the rarer paths that append events on their own, in order.
  const appendEach = async (events: readonly RunEvent[]) => {
    for (const item of events) await store.appendEvent(item);
  };
  const fail = async (code: ToolErrorCode, message: string, durationMs = 0) => {
    const cause = REFUSAL_CODES[code];
    if (cause) deps.hooks?.onWriteRefused?.(data.name, cause);
    const flagged = flagInjection(message, 'error');
    // Error results are wrapped like outputs: their messages quote upstream strings (URLs,
    // headers, network errors), and the model must read all of it as data.
    const result: StoredToolResult = { content: wrapToolError({ toolName: data.name, label: code, message }), is_error: true, error_code: code };
    const stored = await store.recordToolResult(data.runId, result, { ...trail, ok: false, detail: code }, [
      ...flagged,
      event('tool-call-end', { ok: false, tool_result_status: 'error', parse_mode: data.parseMode, error_code: code, message, duration_ms: Math.round(durationMs) }),
    ]);
    deps.hooks?.onToolResult?.({ tool: data.name, parseMode: data.parseMode, status: 'error', durationMs, errorCode: code });
    return { kind: 'recorded', result: stored, cached: false } as const;
  };

  if (isTerminal(run.status)) return fail('run_ended', `The run is ${run.status}; the tool was not run.`);
  if (!isToolName(data.name)) return fail('tool_not_available', `Unknown tool ${quoteUntrusted(data.name, { maxCharacters: 100 })}.`);
  const toolName = data.name;
  const definition = toolDefinitions[toolName];
  const parsed = definition.inputSchema.safeParse(data.input);
  if (!parsed.success) {
    return fail('tool_input_invalid', formatZodIssues({ issues: parsed.error.issues, whole: '(input)' }));
  }

  let probeToken = '';
  let probeSettled = false;
  let claimedAtMs: number | null = null;
  const killSwitchSubject = { runId: data.runId, tenant: run.tenant, upstream: upstreamOf({ tool: data.name, input: parsed.data, sitesBaseUrl: deps.publicBaseUrl }) };
  if (definition.writes) {
    if (run.safeMode === 'skip_writes') {
      return fail('safe_mode_skip_writes', 'The run is in skip_writes safe mode after an invalid tool output: write tools are refused.');
    }
    const refusal = deps.writeGuard ? await deps.writeGuard(run, data.name) : null;
    if (refusal) return fail('killswitch_read_only', refusal);
    if (deps.killSwitch) {
      // The fleet, the run's tenant and every upstream the run depends on (this write's own included).
      const claim = await deps.killSwitch.claimWrite(killSwitchSubject);
      if (claim.verdict === 'refuse') return fail('killswitch_read_only', describeRefusal(claim));
      claimedAtMs = claim.redisTimeMs;
      if (claim.verdict === 'probe') probeToken = claim.probeToken;
    }
  }

  // Records a validated outcome in the kill switch's windows (fleet, tenant, upstream); returns the
  // events that report on this run every scope it tripped or settled, each with its scope. The
  // caller appends them with its next write of the run (the ledger entry on the success path), not
  // one XADD each: the kill switch's keys are fleet-wide and the run's carry its hash tag, so the
  // two cannot share a script on Redis Cluster, but the events can ride along with the run's own.
  const recordOutcome = async (valid: boolean, reason = ''): Promise<RunEvent[]> => {
    if (!deps.killSwitch) return [];
    const record = await deps.killSwitch.recordOutcome({ tool: data.name, valid, reason, probeToken, ...killSwitchSubject });
    if (probeToken) probeSettled = true;
    const settings = deps.killSwitch.settings;
    return record.changes.map((change): RunEvent => {
      const scope = { scope: change.scope.kind, scope_id: change.scopeId };
      if (change.outcome === 'tripped') {
        return {
          run_id: data.runId,
          step: data.turn,
          event: 'killswitch-trip',
          tool: data.name,
          reason,
          ...scope,
          cause: change.cause,
          ...(change.tenants !== null ? { tenants: change.tenants } : {}),
          mode: 'read_only',
          window: change.window,
          window_ms: settings.windowMs,
          threshold: settings.threshold,
          min_volume: settings.minVolume,
          at_ms: change.atMs,
          summary: change.reason,
        };
      }
      return { run_id: data.runId, step: data.turn, event: 'killswitch-probe', tool: data.name, outcome: change.outcome, mode: change.mode, ...scope };
    });
  };

  const invalidOutput = async (error: ToolOutputInvalid, durationMs: number): Promise<ToolJobResult> => {
    const { reason } = error;
    deps.hooks?.onToolOutputInvalid?.(data.name, reason);
    await appendEach(await recordOutcome(false, reason));
    const mode = resolveToolOutputMode({ tool: toolName, defaultMode: definition.output.mode, configured: deps.config.BUILDFLEET_TOOL_OUTPUT_MODES });
    deps.logger.warn({ run_id: data.runId, step: data.turn, tool: data.name, reason, mode, err: error.message }, 'tool output invalid');
    await store.appendEvent({ run_id: data.runId, step: data.turn, event: 'tool-output-reject', tool: data.name, tool_use_id: data.toolUseId, ok: false, error: TOOL_OUTPUT_INVALID_CODE, reason });
    await appendEach(flagInjection(error.message, 'error'));
    const trailEntry = { ...trail, ok: false, detail: `${TOOL_OUTPUT_INVALID_CODE}:${reason}` };
    const finish = async (result: StoredToolResult, extra: Record<string, unknown>, endRunFirst?: (endEvent: RunEvent) => Promise<boolean>) => {
      const endEvent = event('tool-call-end', { ok: false, tool_result_status: 'error', parse_mode: data.parseMode, error_code: TOOL_OUTPUT_INVALID_CODE, reason, mode, ...extra, duration_ms: Math.round(durationMs) });
      // A run that ends here takes the call's end event into its own end step (run-end stays
      // last); a run that had ended already gets it with the ledger entry.
      const endedNow = endRunFirst ? await endRunFirst(endEvent) : false;
      const stored = await store.recordToolResult(data.runId, result, trailEntry, endedNow ? [] : [endEvent]);
      deps.hooks?.onToolResult?.({ tool: data.name, parseMode: data.parseMode, status: 'error', durationMs, errorCode: TOOL_OUTPUT_INVALID_CODE });
      return { kind: 'recorded', result: stored, cached: false } as const;
    };
    const errorResult = (consequence: string): StoredToolResult & { error_reason: string } => ({
      content: wrapToolError({ toolName: data.name, label: `${TOOL_OUTPUT_INVALID_CODE}: ${reason}`, message: `${data.name} returned an invalid output. ${error.message} ${consequence}` }),
      is_error: true,
      error_code: TOOL_OUTPUT_INVALID_CODE,
      error_reason: reason,
    });

    if (mode === 'fail_closed') {
      // The run ends before the ledger entry is written: a worker dying in between leaves a
      // failed run whose retried job answers run_ended, never an open run that goes on.
      return finish(errorResult('Nothing was built from it, and the run is stopped.'), {}, async (endEvent) => {
        const message = `${data.name} returned an invalid output (${reason}): ${error.message}`;
        return store.endRun(data.runId, data.turn, 'failed', { error: { code: INVALID_TOOL_OUTPUT_RUN_ERROR, message } }, [endEvent, { event: 'run-stop', reason: INVALID_TOOL_OUTPUT_RUN_ERROR }]);
      });
    }
    // degrade: from here on the run makes no writes; the switch to safe mode is announced once.
    if (run.safeMode !== 'skip_writes') {
      await store.updateRun(data.runId, { safeMode: 'skip_writes' }, [{ run_id: data.runId, step: data.turn, event: 'run-stop', reason: INVALID_TOOL_OUTPUT_RUN_ERROR, safe_mode: 'skip_writes' }]);
    }
    const scope = lastKnownGoodScopeOf({ writes: definition.writes, scope: definition.output.lastKnownGood });
    const lastGood =
      scope === 'never'
        ? null
        : await store.loadLastKnownGood({ tool: data.name, input: parsed.data, runId: data.runId, scope });
    if (lastGood !== null) {
      const degraded = {
        ...(typeof lastGood === 'object' && !Array.isArray(lastGood) ? (lastGood as Record<string, unknown>) : { value: lastGood }),
        degraded: true,
        degraded_reason: reason,
      };
      const result: StoredToolResult = { content: wrapToolOutput(data.name, degraded, { maxCharacters: MAX_ENVELOPE_BODY_CHARACTERS }), is_error: false, output: degraded };
      return finish(result, { degraded: true });
    }
    return finish(errorResult('Nothing was built from it; the run continues in skip_writes safe mode, so write tools are refused.'), {});
  };

  // Not awaited here: it goes out on the engine's connection ahead of every write the tool makes
  // (same connection, so Redis applies them in order), and is awaited before the result is stored.
  const startWrite = emit('tool-call-start', {
    parse_mode: data.parseMode,
    attempt: job.attemptsMade + 1,
    ...(claimedAtMs !== null ? { write_claimed_at_ms: claimedAtMs } : {}),
    ...(probeToken ? { killswitch_probe: true } : {}),
  }).catch((error: unknown) => deps.logger.warn({ run_id: data.runId, step: data.turn, err: error instanceof Error ? error.message : String(error) }, 'tool-call-start event lost'));
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
  try {
    let output: unknown;
    try {
      output = await definition.execute(parsed.data, context);
    } catch (error) {
      const durationMs = performance.now() - started;
      if (ToolOutputInvalid.isInstance(error)) return await invalidOutput(error, durationMs);
      if (ToolError.isInstance(error)) return await fail(error.code, error.message, durationMs);
      // Never a result: the effect's claim stands (a deployment recorded, a live pointer set) and
      // only its replica is missing; the worker delays the job until it has one (tool-worker.ts).
      if (error instanceof ClaimNotDurableError) throw error;
      if (controller.signal.aborted && !definition.idempotent) {
        return await fail('tool_outcome_unknown', `${data.name} timed out after it started; it is not safe to run again, so its outcome is unknown.`, durationMs);
      }
      if (job.attemptsMade + 1 >= job.maxAttempts) {
        return await fail('tool_infrastructure_error', `${data.name} failed ${job.attemptsMade + 1} times: ${quoteUntrusted(error instanceof Error ? error.message : String(error))}`, durationMs);
      }
      await emit('tool-call-retry', { level: 'warn', message: error instanceof Error ? error.message : String(error), attempt: job.attemptsMade + 1 });
      throw error;
    } finally {
      clearTimeout(timeout);
    }
    const durationMs = performance.now() - started;

    let value: unknown;
    try {
      value = validateToolOutput({
        output,
        contract: definition.output,
        context: { runId: data.runId, toolUseId: data.toolUseId, input: parsed.data, publicBaseUrl: deps.publicBaseUrl },
      });
    } catch (error) {
      if (ToolOutputInvalid.isInstance(error)) return await invalidOutput(error, durationMs);
      throw error;
    }
    // The outcome (kill switch, fleet-wide keys) and the last-known-good copy (its own key) are
    // independent, so they go out together and are awaited together: one round trip of waiting,
    // not two. Not one pipeline or script: their keys are in different Cluster slots, and the
    // ledger entry must wait for the outcome's events anyway. The outcome is still recorded after
    // validation and before the ledger entry, as before (a crash in between re-records it on the
    // retry rather than losing it).
    const scope = lastKnownGoodScopeOf({ writes: definition.writes, scope: definition.output.lastKnownGood });
    const [outcomeEvents] = await Promise.all([
      recordOutcome(true),
      scope === 'never'
        ? undefined
        : store.saveLastKnownGood({ tool: data.name, input: parsed.data, runId: data.runId, scope, output: value }),
      startWrite,
    ]);
    const flagged = flagInjection(value, 'output');

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
    const stored = await store.recordToolResult(data.runId, result, { ...trail, ok: true }, [
      ...outcomeEvents,
      ...flagged,
      event('tool-call-end', { ok: true, tool_result_status: status, parse_mode: data.parseMode, duration_ms: Math.round(durationMs) }),
    ]);
    deps.hooks?.onToolResult?.({ tool: data.name, parseMode: data.parseMode, status, durationMs });
    return { kind: 'recorded', result: stored, cached: false };
  } finally {
    // A probe that produced no validated output (a tool error, a crash to be retried) hands the
    // half-open slot back so another write can probe.
    if (probeToken && !probeSettled) await deps.killSwitch?.releaseProbe(probeToken).catch(() => undefined);
  }
}
