// One model turn, as the model worker runs it. Every step that must happen once is committed
// atomically in Redis, so a worker that dies anywhere in here leaves a turn that the retried
// job finishes without a second model call and without a different set of tool calls.
import { randomBytes } from 'node:crypto';
import type Anthropic from '@anthropic-ai/sdk';
import type { Logger } from 'pino';
import { toolInputSchemas } from '../tools/input-schemas.js';
import { anthropicToolsFor } from '../tools/tool-catalog.js';
import { evaluateFinishGate } from './finish-gate.js';
import { ALL_TOOLS, toolsForPhase, type Phase, assertNever } from './profile.js';
import { FILLER_TOOLS } from '../tools/filler-tools.js';
import { buildSystemPrompt } from './system-prompt.js';
import { chooseToolChoice, PLAN_FIRST_INSTRUCTION } from './tool-choice-policy.js';
import {
  DEFAULT_STOP_SEQUENCES,
  DEFAULT_TURN_LIMITS,
  handleStopReason,
  mergeContinuation,
  type NextInput,
  type PlannedCall,
  type TextRecovery,
  type TurnDecision,
} from './stop-reason-handler.js';
import { buildToolResultsMessage, textMessage } from './turn-input.js';
import { rejectCall } from './reject-call.js';
import type { Config } from '../config.js';
import { callModel, describeModelError, type ModelStreamProgress } from '../model/model-client.js';
import { capMaxTokensToContextWindow } from '../model/cap-max-tokens-to-context-window.js';
import { estimatePromptTokens } from '../model/estimate-prompt-tokens.js';
import { lookupModelCapabilities } from '../model/model-capabilities.js';
import type { ModelCallPause, OverloadPause } from '../queues/model-call-pause.js';
import type { SpendLimitFlagStore } from '../fleet/spend-limit-flag.js';
import { classifyModelError, type RetryOutcome } from '../model/classify-model-error.js';
import type { AssistantMessage, ModelResponse, TranscriptMessage, UserMessage } from '../model/model-message.js';
import type { FleetQueues } from '../queues/fleet-queues.js';
import type { ModelJobData, ToolJobData } from '../queues/job-catalog.js';
import type { RunStore, StoredToolResult } from '../runs/run-store.js';
import type { RunRecord } from '../runs/run-types.js';
import { activeTraceCarrier, inSpan, SpanKind } from '../telemetry/tracing.js';
import { SPAN_ATTRIBUTES, SPAN_NAMES } from '../telemetry/span-attributes.js';

export interface ModelTurnDependencies {
  store: RunStore;
  queues: FleetQueues;
  client: Anthropic;
  config: Config;
  logger: Logger;
  /** Text tool-call recovery (src/parsing), or null to turn it off fleet-wide. */
  recover: ((text: string, allowedTools: readonly string[], toolIntent: boolean) => TextRecovery) | null;
  /** Tool names the model sees in a phase; the flat layout exists for the tiers experiment. */
  toolsFor?: (phase: Phase, run: RunRecord) => { names: readonly string[]; definitions: Array<{ name: string; description: string; input_schema: unknown }> };
  hooks?: ModelTurnHooks;
  /** The fleet-wide model pause (src/queues/model-call-pause.ts): checked right before every
   * call, set first thing on a 429 or a 529, so no worker calls the model during it. */
  modelPause?: Pick<ModelCallPause, 'remainingMs' | 'reason' | 'pause' | 'overloaded' | 'succeeded'>;
  /** The spend-limit flag (src/fleet/spend-limit-flag.ts): raised on a spend-limit answer so the
   * API stops admitting new runs. Runs already admitted still try their call: the limit may have
   * been raised in the meantime, and a refused call costs no tokens. */
  spendLimit?: Pick<SpendLimitFlagStore, 'set'>;
}

/** Observers for metrics and traces; each is optional. */
export interface ModelTurnHooks {
  onModelCall?(details: { run: RunRecord; toolCount: number; durationMs: number; response?: ModelResponse; outcome?: RetryOutcome }): void;
  onDecision?(details: { run: RunRecord; response: ModelResponse; decision: TurnDecision; toolCount: number; expectedTool: boolean; events: Array<Record<string, unknown>> }): void;
  onRunEnd?(details: { run: RunRecord; status: string; errorCode: string | null }): void;
}

/** How the job should end, for the worker to map onto BullMQ. */
export type ModelTurnResult =
  | { kind: 'done'; detail: string }
  | { kind: 'retry'; outcome: RetryOutcome; error: Error }
  /** The fleet-wide pause (set by another call's 429 or 529) is in force: wait, at no attempt's cost. */
  | { kind: 'paused'; waitMs: number };

interface TurnOutcome {
  decision: TurnDecision['kind'];
  nextInput: NextInput | null;
  dispatch: Array<Omit<ToolJobData, 'trace'>>;
}

export interface ModelJobContext {
  jobId: string;
  attemptsMade: number;
  maxAttempts: number;
}

export async function runModelTurn(
  deps: ModelTurnDependencies,
  data: ModelJobData,
  job: ModelJobContext,
): Promise<ModelTurnResult> {
  const { store } = deps;
  const { runId, turn } = data;
  const keys = store.keys;
  const emit = (event: string, fields: Record<string, unknown> = {}) =>
    store.appendEvent({ run_id: runId, step: turn, event, ...fields });

  let run = await store.getRun(runId);
  if (!run) return { kind: 'done', detail: 'run_missing' };
  if (store.isTerminalStatus(run.status)) return { kind: 'done', detail: 'run_terminal' };

  const turnState = await store.redis.hgetall(keys.turn(runId, turn));
  if (turnState.outcome) {
    await dispatch(deps, run, turn, JSON.parse(turnState.outcome) as TurnOutcome, data.trace);
    return { kind: 'done', detail: 'outcome_replayed' };
  }

  // 1. The turn's user input, committed once.
  const previous = turn > 0 ? await readOutcome(store, runId, turn - 1) : null;
  if (!turnState.inputCommitted) {
    const nextInput: NextInput | null = previous ? previous.nextInput : null;
    if (previous && !nextInput) return { kind: 'done', detail: 'previous_turn_ended_run' };
    if (nextInput?.kind === 'tool_results' && run.question && nextInput.toolUseIds.includes(run.question.toolUseId)) {
      const parked = await store.scripts.parkForInput(keys.run(runId), keys.toolResult(runId, run.question.toolUseId), new Date().toISOString());
      if (parked === 0) {
        await emit('input-wait', { question: run.question.question, tool_use_id: run.question.toolUseId });
        return { kind: 'done', detail: 'waiting_for_input' };
      }
      if (parked === -2) return { kind: 'done', detail: 'run_terminal' };
    }
    const messages: UserMessage[] = [];
    if (!nextInput) {
      // A thinking run cannot force the plan with tool_choice, so the first message asks for it.
      const first = textMessage(run.prompt);
      if (run.thinkingBudgetTokens !== null && Array.isArray(first.content)) first.content.push({ type: 'text', text: PLAN_FIRST_INSTRUCTION });
      messages.push(first);
    }
    else if (nextInput.kind === 'tool_results') {
      const built = await buildToolResultsMessage(store, runId, nextInput.toolUseIds, nextInput.note);
      if (built.missing.length > 0) await emit('tool-result-missing', { level: 'warn', tool_use_ids: built.missing });
      messages.push(built.message);
    } else if (nextInput.kind === 'text') messages.push(textMessage(nextInput.text));
    const phase: Phase = run.pendingPhase ?? run.phase;
    const fields: Record<string, string> = { status: 'running', phase, pendingPhase: '', turn: String(turn), question: '' };
    await store.scripts.commitTurnInput(
      keys.turn(runId, turn),
      keys.messages(runId),
      keys.run(runId),
      JSON.stringify(fields),
      ...messages.map((message) => JSON.stringify(message)),
    );
    if (phase !== run.phase) await emit('phase-change', { from: run.phase, to: phase });
    run = (await store.getRun(runId)) ?? run;
    if (store.isTerminalStatus(run.status)) return { kind: 'done', detail: 'run_terminal' };
  }

  // 2. Bounds, before paying for a call.
  if (turn >= run.maxTurns) {
    return endRun(deps, run, turn, 'failed', { code: 'max_turns_exceeded', message: `The run used all ${run.maxTurns} turns.` });
  }
  const budget = run.options.tokenBudget ?? deps.config.BUILDFLEET_TOKEN_BUDGET;
  const spent = run.usage.input_tokens + run.usage.output_tokens;
  if (spent >= budget) {
    return endRun(deps, run, turn, 'failed', { code: 'token_budget_exceeded', message: `The run used ${spent} of its ${budget} tokens.` });
  }

  // 3. One owner per turn: a second job for the same turn (a resume racing the flow parent)
  // stops here; a retry of the owner carries the same job id and goes on.
  const claimKey = keys.turn(runId, turn);
  await store.redis.hsetnx(claimKey, 'claimedBy', job.jobId);
  const owner = await store.redis.hget(claimKey, 'claimedBy');
  if (owner !== job.jobId) return { kind: 'done', detail: `turn_owned_by:${owner}` };

  // 4. The model call, stored once. max_tokens is the run's: raised by a truncation, it stays raised.
  const maxTokens = run.maxTokens;
  const thinking = run.thinkingBudgetTokens === null ? null : { type: 'enabled' as const, budget_tokens: run.thinkingBudgetTokens };
  const phase = run.phase;
  const tools = deps.toolsFor ? deps.toolsFor(phase, run) : toolsForRun(phase, run);
  let response: ModelResponse;
  const storedResponse = await store.redis.hget(claimKey, 'response');
  if (storedResponse) {
    response = JSON.parse(storedResponse) as ModelResponse;
  } else {
    const messages = (await store.getMessages(runId)) as TranscriptMessage[];
    const system = buildSystemPrompt({
      phase,
      note:
        run.safeMode === 'skip_writes'
          ? 'SAFE MODE: a tool returned invalid output, so every write tool is refused for the rest of this run. Do not call write tools; finish by explaining what could not be completed.'
          : null,
    });
    // This call's max_tokens: the run's, lowered so the prompt plus max_tokens fits the context
    // window (the run keeps its own for the next call; cap-max-tokens-to-context-window.ts).
    const callMaxTokens = capMaxTokensToContextWindow({
      maxTokens,
      contextWindowTokens: lookupModelCapabilities({ model: run.model, overrides: deps.config.BUILDFLEET_MODEL_CAPABILITIES }).capabilities.contextWindowTokens,
      estimatedPromptTokens: estimatePromptTokens({ system, tools: tools.definitions, messages }),
      thinkingBudgetTokens: run.thinkingBudgetTokens,
    });
    const toolChoice = chooseToolChoice({ phase, hasPlan: run.todos.length > 0, finishVerified: run.finishVerified, thinking: thinking !== null });
    // The fleet-wide pause, checked right before the call: nothing is awaited between the check
    // and the request going out (turn-start is written alongside the call; it is queued on the
    // same connection ahead of every later event of the turn, so the stream keeps its order), and
    // a turn that waits writes no turn-start for the attempt it did not make.
    const pausedForMs = (await deps.modelPause?.remainingMs()) ?? 0;
    if (pausedForMs > 0) return { kind: 'paused', waitMs: pausedForMs };
    const turnStartWrite = emit('turn-start', {
      phase,
      tools: tools.names.length,
      tool_choice: toolChoice.type,
      max_tokens: callMaxTokens,
      thinking_budget_tokens: thinking?.budget_tokens ?? null,
      attempt: job.attemptsMade + 1,
    });
    const headers: Record<string, string> = { 'x-buildfleet-run-id': runId };
    if (run.options.scenario) headers['x-buildfleet-scenario'] = run.options.scenario;
    const started = performance.now();
    const sentAt = Date.now();
    let requestId: string | null = null;
    const turnStarted = turnStartWrite.then(
      () => undefined,
      (error: unknown) => deps.logger.warn({ run_id: runId, step: turn, err: error instanceof Error ? error.message : String(error) }, 'turn-start event lost'),
    );
    // Progress events go out while the answer streams; each is awaited before the turn moves on,
    // so none lands after the model-response event.
    const progressWrites: Array<Promise<unknown>> = [];
    const onProgress = (progress: ModelStreamProgress) => {
      progressWrites.push(
        emit('model-progress', {
          output_tokens: progress.outputTokens,
          estimated: progress.estimated,
          block: progress.blockKind,
          tool: progress.tool,
          blocks: progress.blocks,
          elapsed_ms: progress.elapsedMs,
          reason: progress.reason,
        }).catch((error: unknown) => deps.logger.warn({ run_id: runId, step: turn, err: error instanceof Error ? error.message : String(error) }, 'model-progress event lost')),
      );
    };
    try {
      const request = {
        model: run.model,
        maxTokens: callMaxTokens,
        system,
        messages,
        tools: tools.definitions,
        toolChoice,
        ...(thinking ? { thinking } : {}),
        stopSequences: Object.keys(DEFAULT_STOP_SEQUENCES),
        headers,
      };
      response = await inSpan(
        SPAN_NAMES.chat(run.model),
        {
          kind: SpanKind.CLIENT,
          attributes: {
            [SPAN_ATTRIBUTES.operationName]: 'chat',
            [SPAN_ATTRIBUTES.providerName]: 'anthropic',
            [SPAN_ATTRIBUTES.requestModel]: run.model,
            [SPAN_ATTRIBUTES.requestMaxTokens]: callMaxTokens,
            [SPAN_ATTRIBUTES.toolCount]: tools.names.length,
          },
        },
        async (span) => {
          const { response: answer } = await callModel(deps.client, request, {
            idleTimeoutMs: deps.config.BUILDFLEET_MODEL_IDLE_TIMEOUT_MS,
            progressIntervalMs: deps.config.BUILDFLEET_MODEL_PROGRESS_INTERVAL_MS,
            onProgress,
            onConnect: (id) => {
              requestId = id;
              if (id) span.setAttribute(SPAN_ATTRIBUTES.requestId, id);
            },
          });
          span.setAttributes({
            [SPAN_ATTRIBUTES.responseModel]: answer.model,
            [SPAN_ATTRIBUTES.responseId]: answer.id,
            [SPAN_ATTRIBUTES.responseFinishReasons]: [answer.stop_reason ?? 'null'],
            [SPAN_ATTRIBUTES.usageInputTokens]: answer.usage.input_tokens,
            [SPAN_ATTRIBUTES.usageOutputTokens]: answer.usage.output_tokens,
          });
          return answer;
        },
      );
    } catch (error) {
      await turnStarted;
      await Promise.allSettled(progressWrites);
      const failure = describeModelError(error);
      const outcome = classifyModelError(failure);
      // The fleet-wide consequences first, before anything else can let another call out.
      const overload = outcome.kind === 'overloaded' ? ((await deps.modelPause?.overloaded()) ?? null) : null;
      if (outcome.kind === 'rate_limited') await deps.modelPause?.pause(outcome.waitMs);
      const failureRequestId = failure.requestId ?? requestId;
      if (outcome.kind === 'spend_cap') {
        await deps.spendLimit?.set({ message: failure.message, model: run.model, runId, requestId: failureRequestId });
      }
      deps.hooks?.onModelCall?.({ run, toolCount: tools.names.length, durationMs: performance.now() - started, outcome });
      await emit('model-error', {
        status: failure.status ?? null,
        error_type: failure.errorType ?? null,
        outcome: outcome.kind,
        message: failure.message,
        request_id: failureRequestId,
        attempt: job.attemptsMade + 1,
      });
      if (outcome.kind === 'overloaded') return waitOutOverload(deps, run, turn, overload, failure.message, error);
      return failModelCall(deps, run, turn, outcome, failure.message, job, error);
    }
    await turnStarted;
    await Promise.allSettled(progressWrites);
    // The API answered: an overload episode, if one was going on, is over.
    await deps.modelPause?.succeeded(sentAt);
    deps.hooks?.onModelCall?.({ run, toolCount: tools.names.length, durationMs: performance.now() - started, response });
    const won = await store.redis.hsetnx(claimKey, 'response', JSON.stringify(response));
    if (won === 1) {
      const usage = await store.addUsage(runId, response.usage);
      run = { ...run, usage };
    } else {
      response = JSON.parse((await store.redis.hget(claimKey, 'response')) as string) as ModelResponse;
    }
    await emit('model-response', {
      request_id: won === 1 ? requestId : null,
      stop_reason: response.stop_reason,
      stop_sequence: response.stop_sequence,
      usage: response.usage,
      tool_uses: response.content.filter((block) => block.type === 'tool_use').map((block) => (block as { name: string }).name),
    });
  }

  // 5. The decision: exhaustive over stop_reason.
  const gate = evaluateFinishGate({
    todos: run.todos,
    trail: await store.getTrail(runId),
    deployments: { latest: run.latestDeploy, live: run.liveDeploy },
  });
  const recoveryEnabled = run.options.textRecovery ?? deps.config.BUILDFLEET_TEXT_RECOVERY;
  const recover = deps.recover;
  const { decision, counters, maxTokens: nextMaxTokens, events } = handleStopReason({
    response,
    finishVerified: run.finishVerified,
    finishGateMissing: gate.missing,
    counters: run.counters,
    currentMaxTokens: maxTokens,
    maxTokensCeiling: run.maxTokensCeiling,
    limits: DEFAULT_TURN_LIMITS,
    stopSequences: DEFAULT_STOP_SEQUENCES,
    recover: recover ? (text, intent) => recover(text, tools.names, intent) : null,
    recoveryEnabled,
    newSyntheticId: () => `synthetic_${randomBytes(12).toString('hex')}`,
  });
  for (const event of events) await emit(event.event, event);
  deps.hooks?.onDecision?.({ run, response, decision, toolCount: tools.names.length, expectedTool: !run.finishVerified, events });

  // 6. Commit the outcome once, then act on it.
  const outcome = await planOutcome(deps, run, turn, decision, tools.names);
  const runFields: Record<string, string> = {
    turn: String(turn + 1),
    counters: JSON.stringify(counters),
    maxTokens: String(nextMaxTokens),
    updatedAt: new Date().toISOString(),
  };
  const askUser = outcome.dispatch.find((call) => call.name === 'ask_user');
  if (askUser) {
    const parsed = toolInputSchemas.ask_user.safeParse(askUser.input);
    if (parsed.success) {
      runFields.question = JSON.stringify({ toolUseId: askUser.toolUseId, question: parsed.data.question, turn: turn + 1 });
    }
  }
  // After pause_turn the request ended with the paused assistant message; the continuation
  // belongs to that same message (two assistant messages in a row are invalid).
  const assistant = previous?.nextInput?.kind === 'none' && decision.assistant ? await mergeIntoLastAssistant(store, runId, decision.assistant) : null;
  const committed = await store.scripts.commitTurnOutput(
    claimKey,
    keys.messages(runId),
    keys.run(runId),
    assistant ? JSON.stringify(assistant) : decision.assistant ? JSON.stringify(decision.assistant) : '',
    JSON.stringify(runFields),
    JSON.stringify(outcome),
    assistant ? 'replace_last' : 'append',
  );
  if (committed === -2) return { kind: 'done', detail: 'run_terminal' };
  const finalOutcome = committed === 1 ? outcome : ((await readOutcome(store, runId, turn)) ?? outcome);
  if (decision.kind === 'succeed') {
    return endRun(deps, run, turn, 'succeeded', null, decision.result);
  }
  if (decision.kind === 'end') {
    // A run in skip_writes safe mode cannot pass the finish gate; say so rather than blame the model.
    const error =
      run.safeMode === 'skip_writes' && decision.error.code === 'unverified_finish'
        ? { code: 'safe_mode_incomplete', message: `The run continued in skip_writes safe mode after an invalid tool output and could not finish: ${decision.error.message}` }
        : decision.error;
    return endRun(deps, run, turn, decision.status, error);
  }
  await dispatch(deps, run, turn, finalOutcome, data.trace);
  return { kind: 'done', detail: decision.kind };
}

async function mergeIntoLastAssistant(store: RunStore, runId: string, continuation: AssistantMessage): Promise<AssistantMessage | null> {
  const raw = await store.redis.lindex(store.keys.messages(runId), -1);
  const last = raw ? (JSON.parse(raw) as TranscriptMessage) : null;
  if (!last || last.role !== 'assistant') return null;
  return mergeContinuation(last, continuation);
}

/** The tier of the phase; the `flat` layout (experiments only) shows every tool plus fillers. */
function toolsForRun(phase: Phase, run: RunRecord) {
  if (run.options.toolLayout === 'flat') {
    const definitions = [...anthropicToolsFor(ALL_TOOLS), ...FILLER_TOOLS];
    return { names: definitions.map((tool) => tool.name), definitions };
  }
  const names = toolsForPhase(phase);
  return { names, definitions: anthropicToolsFor(names) };
}

async function readOutcome(store: RunStore, runId: string, turn: number): Promise<TurnOutcome | null> {
  const raw = await store.redis.hget(store.keys.turn(runId, turn), 'outcome');
  return raw ? (JSON.parse(raw) as TurnOutcome) : null;
}

/** Turns the decision into what the next turn needs. Calls outside the tier or with invalid
 * input are answered right here with an is_error result and never reach a tool worker. */
async function planOutcome(
  deps: ModelTurnDependencies,
  run: RunRecord,
  turn: number,
  decision: TurnDecision,
  allowed: readonly string[],
): Promise<TurnOutcome> {
  switch (decision.kind) {
    case 'tools': {
      const dispatchList: TurnOutcome['dispatch'] = [];
      for (const call of decision.calls) {
        const rejection = rejectCall({ call, allowed, planMissing: run.phase === 'planning' && run.todos.length === 0 });
        if (rejection) {
          await recordRejection(deps.store, run, turn, call, rejection);
          continue;
        }
        dispatchList.push({ runId: run.id, turn, toolUseId: call.toolUseId, name: call.name, input: call.input, parseMode: call.parseMode });
      }
      return {
        decision: 'tools',
        nextInput: { kind: 'tool_results', toolUseIds: decision.calls.map((call) => call.toolUseId), note: decision.note },
        dispatch: dispatchList,
      };
    }
    case 'continue':
      return { decision: 'continue', nextInput: decision.input, dispatch: [] };
    case 'succeed':
    case 'end':
      return { decision: decision.kind, nextInput: null, dispatch: [] };
  }
}

async function recordRejection(
  store: RunStore,
  run: RunRecord,
  turn: number,
  call: PlannedCall,
  rejection: { code: string; message: string },
): Promise<void> {
  const result: StoredToolResult = { content: `Error (${rejection.code}): ${rejection.message}`, is_error: true, error_code: rejection.code };
  await store.recordToolResult(run.id, result, { tool: call.name, ok: false, phase: run.phase, turn, toolUseId: call.toolUseId, detail: rejection.code });
  await store.appendEvent({ run_id: run.id, step: turn, event: 'tool-call-reject', tool: call.name, tool_use_id: call.toolUseId, reason: rejection.code });
}

async function dispatch(deps: ModelTurnDependencies, run: RunRecord, turn: number, outcome: TurnOutcome, trace: Record<string, string>): Promise<void> {
  if (!outcome.nextInput) return;
  const next: ModelJobData = { runId: run.id, turn: turn + 1, trace };
  // Tool calls are children of the turn that made them; the next turn hangs off the run root.
  const turnContext = activeTraceCarrier();
  const toolTrace = Object.keys(turnContext).length > 0 ? turnContext : trace;
  const toolJobs = outcome.dispatch.filter((call) => call.name !== 'ask_user').map((call) => ({ ...call, trace: toolTrace }));
  if (toolJobs.length > 0) {
    await deps.queues.enqueueToolFanOut(next, toolJobs);
    for (const call of toolJobs) {
      await deps.store.appendEvent({ run_id: run.id, step: turn, event: 'tool-call-dispatch', tool: call.name, tool_use_id: call.toolUseId, parse_mode: call.parseMode });
    }
  } else {
    await deps.queues.enqueueTurn(next);
  }
}

async function endRun(
  deps: ModelTurnDependencies,
  run: RunRecord,
  turn: number,
  status: 'succeeded' | 'failed' | 'refused',
  error: { code: string; message: string } | null,
  result: string | null = null,
): Promise<ModelTurnResult> {
  const changed = await deps.store.finishRun(run.id, status, { result, error });
  if (changed) {
    await deps.store.appendEvent({
      run_id: run.id,
      step: turn,
      event: 'run-end',
      status,
      ...(error ? { error_code: error.code, message: error.message } : {}),
    });
    deps.hooks?.onRunEnd?.({ run, status, errorCode: error?.code ?? null });
    deps.logger.info({ run_id: run.id, step: turn, event: 'run-end', status, error_code: error?.code }, 'run ended');
  }
  return { kind: 'done', detail: `run_${status}` };
}

async function failModelCall(
  deps: ModelTurnDependencies,
  run: RunRecord,
  turn: number,
  outcome: RetryOutcome,
  message: string,
  job: ModelJobContext,
  error: unknown,
): Promise<ModelTurnResult> {
  switch (outcome.kind) {
    case 'fatal':
      return endRun(deps, run, turn, 'failed', { code: outcome.code, message });
    case 'spend_cap':
      return endRun(deps, run, turn, 'failed', { code: 'billing_spend_cap', message });
    case 'transient':
    case 'rate_limited_backoff':
      if (job.attemptsMade + 1 >= job.maxAttempts) {
        return endRun(deps, run, turn, 'failed', {
          code: 'model_unavailable',
          message: `The model call failed ${job.attemptsMade + 1} times: ${message}`,
        });
      }
      return { kind: 'retry', outcome, error: error instanceof Error ? error : new Error(message) };
    case 'rate_limited':
      return { kind: 'retry', outcome, error: error instanceof Error ? error : new Error(message) };
    case 'overloaded':
      // Handled by waitOutOverload; here only so a new outcome cannot slip through unhandled.
      return { kind: 'retry', outcome, error: error instanceof Error ? error : new Error(message) };
    default:
      return assertNever(outcome);
  }
}

/**
 * An overloaded API: the fleet-wide pause is already set (and grows while the episode lasts), so
 * the turn waits it out without spending one of its attempts, as a 429 does. Only a turn that has
 * met overload for BUILDFLEET_OVERLOAD_PATIENCE_MS in all fails its run `model_unavailable`;
 * the first overload of the turn is remembered in the turn's hash, so the patience holds across
 * attempts and worker processes.
 */
async function waitOutOverload(
  deps: ModelTurnDependencies,
  run: RunRecord,
  turn: number,
  overload: OverloadPause | null,
  message: string,
  error: unknown,
): Promise<ModelTurnResult> {
  const turnKey = deps.store.keys.turn(run.id, turn);
  const now = Date.now();
  await deps.store.redis.hsetnx(turnKey, 'overloadSince', String(now));
  const since = Number((await deps.store.redis.hget(turnKey, 'overloadSince')) ?? now);
  const overloadedForMs = Math.max(0, now - since);
  const patienceMs = deps.config.BUILDFLEET_OVERLOAD_PATIENCE_MS;
  if (overloadedForMs >= patienceMs) {
    return endRun(deps, run, turn, 'failed', {
      code: 'model_unavailable',
      message: `The model API stayed overloaded for ${Math.round(overloadedForMs / 1000)} s of this turn (patience ${Math.round(patienceMs / 1000)} s): ${message}`,
    });
  }
  await deps.store.appendEvent({
    run_id: run.id,
    step: turn,
    event: 'model-overload',
    wait_ms: overload?.waitMs ?? null,
    backoff_step: overload?.step ?? null,
    overloaded_for_ms: overloadedForMs,
    patience_ms: patienceMs,
  });
  return { kind: 'retry', outcome: { kind: 'overloaded' }, error: error instanceof Error ? error : new Error(message) };
}
