// What a client can do to a run — submit, answer a question, cancel — as functions over the
// store and queues, so the API, the CLI and the tests share one implementation.
import type { FleetContext } from '../fleet/fleet-context.js';
import { jobIds } from '../queues/job-catalog.js';
import type { RunOptions, RunRecord, RunThinking } from './run-types.js';
import { resolveRunModelSettings } from '../model/resolve-run-model-settings.js';
import { newRunId, type StoredToolResult } from './run-store.js';
import { activeTraceCarrier, inSpan, SpanKind, traceIdOfCarrier } from '../telemetry/tracing.js';
import { SPAN_ATTRIBUTES, SPAN_NAMES } from '../telemetry/span-attributes.js';

export interface SubmitRunInput {
  tenant: string;
  prompt: string;
  model?: string | undefined;
  maxTurns?: number | undefined;
  options?: RunOptions | undefined;
  thinking?: RunThinking | undefined;
  traceId?: string | null;
  traceContext?: Record<string, string>;
  /** Chosen by the caller (tests that script faults for the run before it starts); else minted. */
  runId?: string;
}

/** Creates the run and enqueues its first model turn. The run's root span starts here, in the
 * request that creates it; every job of the run carries its context. Throws RunModelSettingsError
 * (nothing created) for an unknown model or a thinking request the model cannot take. */
export async function submitRun(fleet: FleetContext, input: SubmitRunInput): Promise<RunRecord> {
  const runId = input.runId ?? newRunId();
  return inSpan(SPAN_NAMES.runCreate, { kind: SpanKind.SERVER, attributes: { [SPAN_ATTRIBUTES.runId]: runId } }, async () => {
    const carrier = input.traceContext ?? activeTraceCarrier();
    return createAndEnqueue(fleet, { ...input, runId, traceContext: carrier, traceId: input.traceId ?? traceIdOfCarrier(carrier) });
  });
}

async function createAndEnqueue(fleet: FleetContext, input: SubmitRunInput & { runId: string }): Promise<RunRecord> {
  const settings = resolveRunModelSettings({ config: fleet.config, model: input.model, thinking: input.thinking });
  const run = await fleet.store.createRun({
    tenant: input.tenant,
    prompt: input.prompt,
    model: settings.model,
    maxTurns: input.maxTurns ?? fleet.config.BUILDFLEET_MAX_TURNS,
    maxTokens: settings.maxTokens,
    maxTokensCeiling: settings.maxTokensCeiling,
    thinkingBudgetTokens: settings.thinkingBudgetTokens,
    options: input.options ?? {},
    traceId: input.traceId ?? null,
    traceContext: input.traceContext ?? {},
    ...(input.runId ? { runId: input.runId } : {}),
  });
  await fleet.store.appendEvent({ run_id: run.id, step: 0, event: 'run-create', model: run.model, max_tokens: run.maxTokens, thinking_budget_tokens: run.thinkingBudgetTokens, ...(run.traceId ? { trace_id: run.traceId } : {}) });
  await fleet.queues.enqueueTurn({ runId: run.id, turn: 0, trace: input.traceContext ?? {} });
  return run;
}

export type AnswerOutcome = 'resumed' | 'recorded' | 'no_open_question' | 'run_ended';

/** Answers the run's open ask_user question by closing its tool_use with a tool_result. */
export async function answerQuestion(fleet: FleetContext, run: RunRecord, text: string): Promise<AnswerOutcome> {
  const question = run.question;
  if (!question) return 'no_open_question';
  const keys = fleet.store.keys;
  const result: StoredToolResult = {
    content: `<user_answer>\n${text}\n</user_answer>`,
    is_error: false,
    output: { answer: text },
  };
  const trail = { tool: 'ask_user', ok: true, phase: run.phase, turn: question.turn - 1, toolUseId: question.toolUseId };
  const code = await fleet.store.scripts.answerQuestion(
    keys.run(run.id),
    keys.toolResult(run.id, question.toolUseId),
    keys.trail(run.id),
    question.toolUseId,
    JSON.stringify(result),
    JSON.stringify(trail),
    new Date().toISOString(),
  );
  if (code === -2) return 'run_ended';
  if (code === 0) return 'no_open_question';
  await fleet.store.appendEvent({ run_id: run.id, step: question.turn, event: 'input-receive', tool_use_id: question.toolUseId });
  if (code === 1) {
    await fleet.queues.enqueueTurn(
      { runId: run.id, turn: question.turn, trace: run.traceContext },
      jobIds.modelResume(run.id, question.turn, question.toolUseId),
    );
    return 'resumed';
  }
  return 'recorded';
}

/** Cancels a run that has not ended; its queued jobs find it cancelled and do nothing. */
export async function cancelRun(fleet: FleetContext, run: RunRecord): Promise<boolean> {
  const changed = await fleet.store.finishRun(run.id, 'cancelled', { error: { code: 'cancelled', message: 'The run was cancelled.' } });
  if (changed) await fleet.store.appendEvent({ run_id: run.id, step: run.turn, event: 'run-end', status: 'cancelled' });
  return changed;
}
