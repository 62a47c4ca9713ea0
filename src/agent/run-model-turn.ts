// One model turn, as the model worker runs it, over the run engine (src/engine/run-engine.ts):
// load the turn (one round trip), commit its input and claim it (one), check the model pause of the
// call's provider and rate-limit class (one), call the model, then commit the answer with everything decided from it (one) and hand the
// tool calls to the queue. Every step that must happen once is a once-only engine transition, so a
// worker that dies anywhere in here leaves a turn that the retried job finishes without a second
// set of tool calls.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { toolInputSchemas } from '../domain/tool-input-schemas.js';
import { anthropicToolsFor } from '../tools/tool-definitions.js';
import { evaluateFinishGate } from '../domain/finish-gate.js';
import { toolsForPhase, WRITE_TOOLS, type Phase, type ToolName } from '../domain/profile.js';
import { claimDurabilityOf } from '../engine/effects/claim-durability.js';
import { isTerminal, type RunErrorCode } from '../domain/run-outcomes.js';
import { buildSystemPrompt } from './system-prompt.js';
import { choosePhaseToolLayout, declaredTools, phaseMessage, TOOL_CHANGES_BETA } from './phase-tools.js';
import { chooseToolChoice, mayForceToolChoice, PLAN_FIRST_INSTRUCTION } from './tool-choice-policy.js';
import { buildThinkingRequest } from '../domain/thinking-request.js';
import { readsProgressUpdates } from '../domain/model-written-text.js';
import type { ToolChoice } from '../domain/tool-choice.js';
import {
  DEFAULT_STOP_SEQUENCES,
  DEFAULT_TURN_LIMITS,
  handleStopReason,
  mergeContinuation,
  type TextRecovery,
  type TurnDecision,
} from './stop-reason-handler.js';
import { buildToolResultsMessage, textMessage } from './turn-input.js';
import { rejectCall } from './reject-call.js';
import { wrapToolError } from '../domain/tool-result-envelope.js';
import { noteForToolResults, verifiedFinishSummary } from './summary-request.js';
import { decideModelRetry, type AdmissionWait, type RetryDecision } from './decide-model-retry.js';
import type { Config } from '../config.js';
import { paidUsageOfFailedCall, type ModelStreamProgress } from '../model/model-client.js';
import { GEN_AI_PROVIDER_NAMES, type ModelProvider } from '../providers/model-provider.js';
import { ProviderConfigurationError, type ProviderRegistry } from '../providers/provider-registry.js';
import { capMaxTokensToContextWindow } from '../model/cap-max-tokens-to-context-window.js';
import { estimatePromptTokens, promptCharacters } from '../model/estimate-prompt-tokens.js';
import type { TokenCalibration } from '../model/token-calibration.js';
import { placeCacheBreakpoints } from '../model/place-cache-breakpoints.js';
import { choosePromptCacheTtl } from './prompt-cache-ttl.js';
import { lookupModelCapabilities, rateLimitClassOf } from '../domain/model-capabilities.js';
import type { ModelDescriptions } from '../model/model-descriptions.js';
import { totalInputTokens, totalTokens, type UsageByClass } from '../domain/usage.js';
import { costOfAnswer, estimateCallCostMicroUsd, microUsdToUsd } from '../domain/usage-cost.js';
import { checkRunBudget } from '../domain/run-budget.js';
import type { ModelCallPause, ModelPauseScope, OverloadPause, PauseCheck, PauseInForce } from '../model/model-call-pause.js';
import { admissionCacheHint, type AdmissionObservation, type ModelRateLimiter } from '../model/model-rate-limiter.js';
import { DEFAULT_RUN_PRIORITY } from '../domain/run-priority.js';
import type { SpendLimitFlagStore } from '../model/spend-limit-flag.js';
import { classifyModelError, type RetryOutcome } from '../model/classify-model-error.js';
import type { ModelResponse, SystemMessage, TranscriptMessage, UserMessage } from '../domain/model-message.js';
import type { QueueShards } from '../jobs/queue-shards.js';
import type { ModelJobData, ToolJobData } from '../jobs/job-catalog.js';
type ToolParseMode = ToolJobData['parseMode'];
import type { RunEngine, RunEvent, StoredToolResult, TrailEntry, TurnView } from '../engine/run-engine.js';
import { StoredRunInvalid } from '../engine/run-record.js';
import type { TurnOutcome } from '../engine/turn-outcome.js';
import type { RunRecord } from '../engine/run-types.js';
import { activeTraceCarrier, inSpan, SpanKind } from '../telemetry/tracing.js';
import { SPAN_ATTRIBUTES, SPAN_NAMES } from '../telemetry/span-attributes.js';

/** A retry-after longer than this many cycles in one turn fails the run instead of looping. */
export const MAX_RATE_LIMIT_CYCLES = 20;

export interface ToolsOffered {
  /** The tools the model may call this turn: the phase's tier (what calls are held to). */
  names: readonly string[];
  /** The request's `tools`: the tier, or every tool declared once (phase-tools.ts). */
  definitions: Array<{ name: string; description: string; input_schema: unknown }>;
}

export interface ModelTurnDependencies {
  store: RunEngine;
  queues: Pick<QueueShards, 'of'>;
  /** The worker's providers (src/providers/provider-registry.ts): each run's calls go through the
   * one its record names. */
  providers: Pick<ProviderRegistry, 'get'>;
  config: Config;
  logger: Logger;
  /** Text tool-call recovery (src/parsing), or null to turn it off fleet-wide. */
  recover: ((text: string, allowedTools: readonly string[], toolIntent: boolean) => TextRecovery) | null;
  /** The tools the model sees in a phase: the phase's tier unless an experiment injects its own
   * layout (the tiers experiment's flat layout, src/cli/experiment-tiers.ts). */
  toolsFor?: (phase: Phase, run: RunRecord) => ToolsOffered;
  hooks?: ModelTurnHooks;
  /** The model pause (src/model/model-call-pause.ts), per provider identity and rate-limit class:
   * checked right before every call, set first thing on a 429 or a 529, so no worker calls that
   * class through that provider during it. */
  modelPause?: Pick<ModelCallPause, 'check' | 'pause' | 'overloaded' | 'succeeded'>;
  /** The shared limiter (src/model/model-rate-limiter.ts, docs/admission.md), when admission is
   * on: a call's requests and tokens are reserved before the pause check and settled after it. */
  admission?: Pick<ModelRateLimiter, 'reserve' | 'settleAnswer' | 'settleFailure' | 'release'>;
  /** The spend-limit flag (src/model/spend-limit-flag.ts): raised on a spend-limit answer so the
   * API stops admitting new runs. Runs already admitted still try their call: the limit may have
   * been raised in the meantime, and a refused call costs no tokens. */
  spendLimit?: Pick<SpendLimitFlagStore, 'set'>;
  /** What the provider's Models API last said of each model (src/model/model-descriptions.ts): a
   * model the catalog does not know runs on its context window. */
  modelDescriptions?: Pick<ModelDescriptions, 'describe'>;
  /** The worker's measured token ratios (src/model/token-calibration.ts): the prompt estimate of a
   * provider that counts tokens is calibrated with it now and then; absent, the documented ratios. */
  tokenCalibration?: Pick<TokenCalibration, 'ratio'>;
}

/** Observers for metrics and traces; each is optional. (Run ends: RunEngine.observeRunEnds.) */
export interface ModelTurnHooks {
  /** `costMicroUsd` comes with `response`, or with `paidUsage` for a call that failed after its
   * stream started (it was paid for all the same: model-client.ts paidUsageOfFailedCall). */
  onModelCall?(details: { run: RunRecord; toolCount: number; durationMs: number; response?: ModelResponse; paidUsage?: UsageByClass; costMicroUsd?: number; outcome?: RetryOutcome }): void;
  /** `toolChoice` is what the call sent: a forced turn could only end in a call. */
  onDecision?(details: { run: RunRecord; response: ModelResponse; decision: TurnDecision; toolCount: number; expectedTool: boolean; toolChoice: ToolChoice; events: Array<Record<string, unknown>> }): void;
  /** Each reserve and settle of the admission limiter (the model worker hands it to the limiter). */
  onAdmission?(observation: AdmissionObservation): void;
}

/** How the job should end, for the worker to map onto BullMQ. */
export type ModelTurnResult = { kind: 'done'; detail: string } | { kind: 'retry'; delayMs: number; spendsAttempt: boolean; error: Error };

export interface ModelJobContext {
  jobId: string;
  attemptsMade: number;
  maxAttempts: number;
}

const done = (detail: string): ModelTurnResult => ({ kind: 'done', detail });

const SAFE_MODE_NOTE =
  'SAFE MODE: a tool returned invalid output, so every write tool is refused for the rest of this run. Do not call write tools; finish by explaining what could not be completed.';

const TIERS = new Map<string, ToolsOffered>();

/** The tier of the phase (the production layout), built once per phase and strictness: every turn
 * of every run sends the same array, so its size is measured once (estimate-prompt-tokens.ts). */
export function tieredTools(phase: Phase, { strict = false }: { strict?: boolean } = {}): ToolsOffered {
  const key = `${phase}:${strict}`;
  let tier = TIERS.get(key);
  if (!tier) {
    const names = toolsForPhase(phase);
    tier = { names, definitions: anthropicToolsFor(names, { strict }) };
    TIERS.set(key, tier);
  }
  return tier;
}

/** Providers whose requests may carry `strict: true`: the Claude API and Vertex. Bedrock offers
 * structured outputs for some models only (not Sonnet 5.5 nor Haiku 5.5: their migration guides),
 * a per-platform fact the catalog does not hold, so it gets none; an OpenAI-compatible server has
 * no such field for the fleet to rely on. */
const STRICT_TOOL_PROVIDERS: ReadonlySet<string> = new Set(['anthropic', 'vertex']);

export async function runModelTurn(deps: ModelTurnDependencies, data: ModelJobData, job: ModelJobContext, reloads = 0): Promise<ModelTurnResult> {
  const { store } = deps;
  const { runId, turn } = data;
  // The turn's duration, as GET /v1/runs/:id/turns shows it: from this attempt's load to its commit.
  const turnLoadedAt = performance.now();
  const event = (name: string, fields: Record<string, unknown> = {}): RunEvent => ({ run_id: runId, step: turn, event: name, ...fields });
  const emit = (name: string, fields: Record<string, unknown> = {}) => store.appendEvent(event(name, fields));

  let view: TurnView | null;
  try {
    view = await store.loadTurn(runId, turn);
  } catch (error) {
    // State that does not decode cannot be retried into shape: the run ends, saying why.
    if (!(error instanceof StoredRunInvalid)) throw error;
    deps.logger.error({ run_id: runId, step: turn, err: error.message }, 'stored run state invalid');
    await store.endRun(runId, turn, 'failed', { error: { code: 'stored_run_invalid', message: error.message } });
    return done('run_failed:stored_run_invalid');
  }
  if (!view) return done('run_missing');
  let run = view.run;
  if (isTerminal(run.status)) return done('run_terminal');
  if (view.turn.outcome) {
    // Committed by an earlier attempt that died before (or while) handing its calls to the queue.
    await dispatch(deps, run, turn, view.turn.outcome, data.trace, { replay: true });
    return done('outcome_replayed');
  }

  // The run's provider: one this worker does not have (a declaration removed since the run was
  // created) can never answer it, so the run ends saying which.
  let provider: ModelProvider;
  try {
    provider = deps.providers.get(run.provider);
  } catch (error) {
    if (!(error instanceof ProviderConfigurationError)) throw error;
    await store.endRun(runId, turn, 'failed', { error: { code: 'provider_not_configured', message: error.message } });
    return done('run_failed:provider_not_configured');
  }
  // The catalog's (or, for a model only the provider's Models API describes, that API's) facts.
  const capabilities = lookupModelCapabilities({ model: run.model, overrides: deps.config.BUILDFLEET_MODEL_CAPABILITIES, described: deps.modelDescriptions?.describe(run.model) }).capabilities;
  // How the model sees the phase's tools (phase-tools.ts): fixed by the run's first request. An
  // experiment's own layout (deps.toolsFor) keeps the tier per request.
  const layout = deps.toolsFor
    ? 'tier_per_request'
    : choosePhaseToolLayout({ messages: view.messages as TranscriptMessage[], capabilities, providerKind: provider.kind, enabled: deps.config.BUILDFLEET_PHASE_TOOL_CHANGES });
  const safeModeNote = run.safeMode === 'skip_writes' ? SAFE_MODE_NOTE : null;

  // 1. The turn's user input, committed once, and the turn claimed by this job.
  const previous = view.previousOutcome;
  const nextInput = previous ? previous.nextInput : null;
  const inputMessages: Array<UserMessage | SystemMessage> = [];
  const inputEvents: RunEvent[] = [];
  const phase: Phase = run.pendingPhase ?? run.phase;
  // Whether tool_choice may force a call follows the model's capabilities and the run's thinking.
  const mayForce = mayForceToolChoice({ capabilities, thinking: run.thinking });
  if (!view.turn.inputCommitted) {
    if (previous && !nextInput) return done('previous_turn_ended_run');
    const question = run.question;
    if (nextInput?.kind === 'tool_results' && question && nextInput.toolUseIds.includes(question.toolUseId) && !view.results.get(question.toolUseId)) {
      const parked = await store.parkForInput(runId, turn, question);
      if (parked === 'parked') return done('waiting_for_input');
      if (parked === 'terminal') return done('run_terminal');
      // The answer arrived between the load and the park: load again, with it.
      if (reloads < 2) return runModelTurn(deps, data, job, reloads + 1);
    }
    if (!nextInput) {
      // A run whose tool_choice cannot force the plan (its model refuses forcing, or it thinks)
      // asks for it in the first message.
      const first = textMessage(run.prompt);
      if (!mayForce && Array.isArray(first.content)) first.content.push({ type: 'text', text: PLAN_FIRST_INSTRUCTION });
      inputMessages.push(first);
    } else if (nextInput.kind === 'tool_results') {
      // After the finish gate the message ends with the request for the summary (summary-request.ts).
      const built = buildToolResultsMessage(view.results, nextInput.toolUseIds, noteForToolResults({ finishVerified: run.finishVerified, note: nextInput.note }));
      if (built.missing.length > 0) inputEvents.push(event('tool-result-missing', { level: 'warn', tool_use_ids: built.missing }));
      inputMessages.push(built.message);
    } else if (nextInput.kind === 'text') inputMessages.push(textMessage(nextInput.text));
    if (phase !== run.phase) inputEvents.push(event('phase-change', { from: run.phase, to: phase }));
    // The phase's instructions and tool changes, right after the user message (a system message
    // must follow a user turn); a turn without one (a pause_turn continuation) leaves them to the
    // next turn, while the fleet already holds calls to the new tier.
    if (layout === 'declared_once' && inputMessages.length > 0) {
      const message = phaseMessage({ messages: [...(view.messages as TranscriptMessage[]), ...inputMessages], phase, note: safeModeNote });
      if (message) {
        inputMessages.push(message);
        inputEvents.push(event('phase-message', { phase, tool_changes: Array.isArray(message.content) ? message.content.filter((block) => block.type !== 'text').length : 0 }));
      }
    }
  }
  const inputFields = { status: 'running', phase, pendingPhase: '', turn: String(turn), question: '' };
  const started = await store.startTurn(runId, turn, { jobId: job.jobId, fields: inputFields, messages: inputMessages, events: inputEvents });
  if (started === 'missing') return done('run_missing');
  if (started === 'terminal') return done('run_terminal');
  // One owner per turn: a second job for the same turn (a resume racing the flow parent) stops
  // here; a retry of the owner carries the same job id and goes on.
  if (started.owner !== job.jobId) return done(`turn_owned_by:${started.owner}`);
  // Loaded uncommitted, found committed: another attempt with this job id (a stalled job run
  // twice) committed the input in between. Load again rather than send a transcript built here.
  if (!view.turn.inputCommitted && !started.committedNow) return reloads < 2 ? runModelTurn(deps, data, job, reloads + 1) : done('input_committed_elsewhere');
  const messages = (view.turn.inputCommitted ? view.messages : [...view.messages, ...inputMessages]) as TranscriptMessage[];
  if (!view.turn.inputCommitted) run = { ...run, status: 'running', phase, pendingPhase: null, turn, question: null };

  // 2. Bounds, before paying for a call.
  if (turn >= run.maxTurns) {
    await store.endRun(runId, turn, 'failed', { error: { code: 'max_turns_exceeded', message: `The run used all ${run.maxTurns} turns.` } });
    return done('run_failed');
  }
  // The run's budgets are checked in 3, once this call's worst case is known.

  // 3. The model call. max_tokens is the run's: raised by a truncation, it stays raised.
  const maxTokens = run.maxTokens;
  const thinkingRequest = buildThinkingRequest({ settings: run, capabilities });
  const thinking = thinkingRequest.thinking;
  const strict = deps.config.BUILDFLEET_STRICT_TOOLS && capabilities.strictTools && STRICT_TOOL_PROVIDERS.has(provider.kind);
  // The calls allowed stay the phase's tier in every layout; a declared_once request shows every
  // tool, the tier surfaced by the transcript's tool changes, and a system prompt without the phase.
  const tools: ToolsOffered = deps.toolsFor
    ? deps.toolsFor(phase, run)
    : layout === 'declared_once'
      ? { names: toolsForPhase(phase), definitions: declaredTools({ strict }).definitions }
      : tieredTools(phase, { strict });
  const system = buildSystemPrompt(layout === 'declared_once' ? { phase: null } : { phase, note: safeModeNote });
  const toolChoice = chooseToolChoice({ phase, hasPlan: run.todos.length > 0, mayForce });
  const promptParts = {
    system,
    tools: tools.definitions,
    messages,
    // The stored messages' lengths plus the array's brackets and commas.
    messagesCharacters: (view.turn.inputCommitted ? view.transcriptCharacters : view.transcriptCharacters + started.appendedCharacters) + Math.max(1, messages.length) + 1,
  };
  // The prompt's tokens in the model's tokenizer (the newer one makes ~30% more of the same text),
  // calibrated with the provider's count_tokens on the first call of the model in this worker and
  // now and then after (token-calibration.ts says why not before every call); a count that fails
  // leaves the documented ratio and never fails the turn. Budgets, the admission reservation and
  // the context-window cap all take this one estimate.
  const countTokens = provider.countTokens?.bind(provider);
  const measuredRatio = deps.tokenCalibration
    ? await deps.tokenCalibration.ratio({
        provider: provider.name,
        model: run.model,
        characters: promptCharacters(promptParts),
        count: countTokens
          ? () => countTokens({ model: run.model, system, messages, tools: tools.definitions, toolChoice, ...(thinking ? { thinking } : {}), ...(thinkingRequest.outputConfig ? { outputConfig: thinkingRequest.outputConfig } : {}), betas: thinkingRequest.betas })
          : null,
        onFailure: (error) => deps.logger.warn({ run_id: runId, step: turn, model: run.model, err: error instanceof Error ? error.message : String(error) }, 'token count for calibration failed'),
      })
    : null;
  const estimatedPromptTokens = estimatePromptTokens({ ...promptParts, tokenizer: capabilities.tokenizer, measuredRatio });
  // This call's max_tokens: the run's, lowered so the prompt plus max_tokens fits the context
  // window (the run keeps its own for the next call; cap-max-tokens-to-context-window.ts).
  const callMaxTokens = capMaxTokensToContextWindow({
    maxTokens,
    contextWindowTokens: capabilities.contextWindowTokens,
    estimatedPromptTokens,
    thinkingBudgetTokens: run.thinkingBudgetTokens,
  });
  // The budgets, before anything is reserved or paid for: what the run spent plus the most this
  // call can cost — every input token at the dearest way it can be billed (uncached, or written at
  // the lifetime this request's breakpoints write) and all of max_tokens as output
  // (domain/usage-cost.ts) — must stay within each budget, or the run ends here, before the call.
  // Every token class counts: cached input is still input the run sent (domain/usage.ts).
  const cacheTtl = choosePromptCacheTtl({ offeredTools: tools.names, waitingTtl: deps.config.BUILDFLEET_PROMPT_CACHE_TTL_WAITING });
  const overBudget = checkRunBudget({
    budget: run.budget,
    spent: { costMicroUsd: run.costMicroUsd, tokens: totalTokens(run.usage) },
    call: {
      costMicroUsd: estimateCallCostMicroUsd({
        model: run.model,
        inputTokens: estimatedPromptTokens,
        maxOutputTokens: callMaxTokens,
        cacheLifetime: deps.config.BUILDFLEET_PROMPT_CACHING ? cacheTtl : null,
        overrides: deps.config.BUILDFLEET_MODEL_PRICES,
      }),
      promptTokens: estimatedPromptTokens,
      maxTokens: callMaxTokens,
    },
  });
  if (overBudget !== null) {
    await store.endRun(runId, turn, 'failed', { error: { code: 'budget_exceeded', message: overBudget } });
    return done('run_failed:budget_exceeded');
  }
  // Admission first (docs/admission.md): the call's request, estimated input and max_tokens are
  // reserved from the fleet's shared buckets, or the job comes back when they hold them (the same
  // call id claims the slot booked for it), so the pause check stays the last step before the call.
  const priority = run.options.priority ?? DEFAULT_RUN_PRIORITY;
  const admission = deps.admission
    ? await deps.admission.reserve({
        // The provider's own buckets: two providers serving one model id have limits of their own.
        provider: { name: provider.name, identity: provider.limiterIdentity },
        model: run.model,
        callId: `${runId}:${turn}`,
        chainId: runId,
        priority,
        inputTokens: estimatedPromptTokens,
        outputTokens: callMaxTokens,
        // Effort keys the cache as thinking does (a change starts a new prefix, build-with-claude/effort);
        // the prefix is what is sent: a declared_once run's tools are every tool, whatever its phase.
        cache: admissionCacheHint({
          system,
          tools: tools.definitions,
          toolNames: tools.definitions.map((tool) => tool.name),
          toolChoice,
          thinking: thinkingRequest.outputConfig ? { thinking, output_config: thinkingRequest.outputConfig } : thinking,
          tokenizer: capabilities.tokenizer,
          measuredRatio,
        }),
      })
    : null;
  if (admission?.kind === 'wait') {
    const wait: AdmissionWait = { kind: 'admission_wait', waitMs: admission.waitMs, limit: admission.limit, booked: admission.booked, priority };
    return retryOrFail(deps, run, turn, wait, 'admission wait', job, new Error(`Waiting ${admission.waitMs} ms for model capacity (${admission.limit}).`), 0);
  }
  const reservation = admission?.kind === 'go' ? admission.reservation : null;
  const settleAdmission = (settle: () => Promise<unknown> | undefined) =>
    // Best effort: a settle that fails leaves the reservation to expire; it must never cost the
    // answer already paid for.
    settle()?.catch((error: unknown) => deps.logger.warn({ run_id: runId, step: turn, err: error instanceof Error ? error.message : String(error) }, 'admission settle failed'));
  // The pause of the call's scope (its provider's identity and its model's rate-limit class),
  // checked right before the call: nothing is awaited between the check and the request going out (turn-start is written alongside the call; it is queued on the
  // same connection ahead of every later event of the turn, so the stream keeps its order), and
  // a turn that waits writes no turn-start for the attempt it did not make.
  const pauseScope: ModelPauseScope = {
    provider: provider.name,
    identity: provider.limiterIdentity,
    rateLimitClass: rateLimitClassOf({ model: run.model, overrides: deps.config.BUILDFLEET_MODEL_CAPABILITIES }),
  };
  const pause: PauseCheck | null = (await deps.modelPause?.check(pauseScope)) ?? null;
  if (pause && pause.remainingMs > 0) {
    if (reservation) await settleAdmission(() => deps.admission?.release(reservation));
    const message = `The model pause of provider ${pauseScope.provider}, class ${pauseScope.rateLimitClass} is in force.`;
    return retryOrFail(deps, run, turn, { kind: 'paused' }, 'paused', job, new Error(message), pause.remainingMs, null, pauseScope);
  }
  const turnStartWrite = emit('turn-start', {
    phase,
    tools: tools.names.length,
    tool_choice: toolChoice.type,
    tool_layout: layout,
    strict_tools: strict,
    max_tokens: callMaxTokens,
    thinking: run.thinking,
    thinking_budget_tokens: run.thinkingBudgetTokens,
    ...(run.effort ? { effort: run.effort } : {}),
    attempt: job.attemptsMade + 1,
    // When this call passed the pause check, by Redis's clock (model-call-pause.ts PauseCheck).
    ...(pause ? { pause_checked_at_ms: pause.atMs } : {}),
  });
  let response: ModelResponse;
  let requestId: string | null = null;
  // The answer's cost, priced once when it arrives and committed with it (domain/usage-cost.ts).
  let costMicroUsd = 0;
  let modelDurationMs = 0;
  // The answer's response headers (anthropic-ratelimit-*), for the admission limiter.
  let answerHeaders: { headers: Headers | null; receivedAt: number | null } = { headers: null, receivedAt: null };
  {
    const headers: Record<string, string> = { 'x-buildfleet-run-id': runId };
    if (layout === 'declared_once') headers['anthropic-beta'] = TOOL_CHANGES_BETA;
    if (run.options.scenario) headers['x-buildfleet-scenario'] = run.options.scenario;
    const callStarted = performance.now();
    const sentAt = Date.now();
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
        // Prompt-cache breakpoints, on a copy: the stored transcript never carries one.
        ...(deps.config.BUILDFLEET_PROMPT_CACHING
          ? placeCacheBreakpoints({
              tools: tools.definitions,
              system,
              messages,
              ttl: cacheTtl,
            })
          : { system, messages, tools: tools.definitions }),
        toolChoice,
        ...(thinking ? { thinking } : {}),
        ...(thinkingRequest.outputConfig ? { outputConfig: thinkingRequest.outputConfig } : {}),
        ...(thinkingRequest.betas.length > 0 ? { betas: thinkingRequest.betas } : {}),
        stopSequences: Object.keys(DEFAULT_STOP_SEQUENCES),
        headers,
        tokenizer: capabilities.tokenizer,
      };
      response = await inSpan(
        SPAN_NAMES.chat(run.model),
        {
          kind: SpanKind.CLIENT,
          attributes: {
            [SPAN_ATTRIBUTES.operationName]: 'chat',
            [SPAN_ATTRIBUTES.providerName]: GEN_AI_PROVIDER_NAMES[provider.kind],
            [SPAN_ATTRIBUTES.providerConfigName]: provider.name,
            [SPAN_ATTRIBUTES.requestModel]: run.model,
            [SPAN_ATTRIBUTES.requestMaxTokens]: callMaxTokens,
            [SPAN_ATTRIBUTES.toolCount]: tools.names.length,
          },
        },
        async (span) => {
          const { response: answer, headers: responseHeaders, headersReceivedAt } = await provider.call(request, {
            idleTimeoutMs: deps.config.BUILDFLEET_MODEL_IDLE_TIMEOUT_MS,
            progressIntervalMs: deps.config.BUILDFLEET_MODEL_PROGRESS_INTERVAL_MS,
            onProgress,
            onConnect: (id) => {
              requestId = id;
              if (id) span.setAttribute(SPAN_ATTRIBUTES.requestId, id);
            },
          });
          answerHeaders = { headers: responseHeaders, receivedAt: headersReceivedAt };
          span.setAttributes({
            [SPAN_ATTRIBUTES.responseModel]: answer.model,
            [SPAN_ATTRIBUTES.responseId]: answer.id,
            [SPAN_ATTRIBUTES.responseFinishReasons]: [answer.stop_reason ?? 'null'],
            // gen_ai.usage.input_tokens includes the cached parts (OTel GenAI conventions:
            // cache reads and writes "SHOULD be included in gen_ai.usage.input_tokens").
            [SPAN_ATTRIBUTES.usageInputTokens]: totalInputTokens(answer.usage),
            [SPAN_ATTRIBUTES.usageCacheReadInputTokens]: answer.usage.cache_read_input_tokens,
            [SPAN_ATTRIBUTES.usageCacheCreationInputTokens]: answer.usage.cache_write_5m_input_tokens + answer.usage.cache_write_1h_input_tokens,
            [SPAN_ATTRIBUTES.usageOutputTokens]: answer.usage.output_tokens,
          });
          return answer;
        },
      );
    } catch (error) {
      await turnStarted;
      await Promise.allSettled(progressWrites);
      const failure = provider.describeError(error);
      const outcome = classifyModelError(failure);
      // The scope's pause first, before anything else can let another of its calls out.
      const pauseSet: PauseInForce | OverloadPause | null =
        outcome.kind === 'overloaded'
          ? ((await deps.modelPause?.overloaded(pauseScope)) ?? null)
          : outcome.kind === 'rate_limited'
            ? ((await deps.modelPause?.pause(pauseScope, outcome.waitMs)) ?? null)
            : null;
      if (reservation) await settleAdmission(() => deps.admission?.settleFailure(reservation, failure));
      const failureRequestId = failure.requestId ?? requestId;
      if (outcome.kind === 'spend_cap') {
        await deps.spendLimit?.set({ message: failure.message, model: run.model, runId, requestId: failureRequestId });
      }
      // A stream that broke after it started was paid for: the run, its budget and its tenant count it.
      const paidUsage = paidUsageOfFailedCall(error);
      const paidCostMicroUsd = paidUsage ? costOfAnswer({ model: run.model, usage: paidUsage, overrides: deps.config.BUILDFLEET_MODEL_PRICES }).costMicroUsd : 0;
      if (paidUsage) await store.chargeFailedCall(runId, turn, { callId: failureRequestId ?? randomBytes(8).toString('hex'), usage: paidUsage, costMicroUsd: paidCostMicroUsd });
      deps.hooks?.onModelCall?.({ run, toolCount: tools.names.length, durationMs: performance.now() - callStarted, outcome, ...(paidUsage ? { paidUsage, costMicroUsd: paidCostMicroUsd } : {}) });
      await emit('model-error', {
        status: failure.status ?? null,
        error_type: failure.errorType ?? null,
        outcome: outcome.kind,
        message: failure.message,
        request_id: failureRequestId,
        attempt: job.attemptsMade + 1,
        ...(paidUsage ? { usage: paidUsage, cost_usd: microUsdToUsd(paidCostMicroUsd) } : {}),
      });
      return retryOrFail(deps, run, turn, outcome, failure.message, job, error instanceof Error ? error : new Error(failure.message), pauseSet?.waitMs ?? 0, pauseSet, pauseScope);
    }
    await turnStarted;
    await Promise.allSettled(progressWrites);
    // The API answered: an overload episode, if one was going on, is over.
    if (pause?.overloadEpisode) await deps.modelPause?.succeeded(pauseScope, sentAt);
    if (reservation) await settleAdmission(() => deps.admission?.settleAnswer(reservation, { usage: response.usage, headers: answerHeaders.headers, headersReceivedAt: answerHeaders.receivedAt }));
    costMicroUsd = costOfAnswer({ model: run.model, usage: response.usage, overrides: deps.config.BUILDFLEET_MODEL_PRICES }).costMicroUsd;
    modelDurationMs = performance.now() - callStarted;
    deps.hooks?.onModelCall?.({ run, toolCount: tools.names.length, durationMs: modelDurationMs, response, costMicroUsd });
  }

  // 4. The decision: exhaustive over stop_reason.
  const gate = evaluateFinishGate({ todos: run.todos, trail: view.trail, deployments: { latest: run.latestDeploy, live: run.liveDeploy } });
  const recover = deps.recover;
  const { decision, counters, maxTokens: nextMaxTokens, events: decisionEvents } = handleStopReason({
    response,
    finishVerified: run.finishVerified,
    finishGateMissing: gate.missing,
    finishSummary: run.finishVerified ? verifiedFinishSummary(messages) : null,
    counters: run.counters,
    currentMaxTokens: maxTokens,
    maxTokensCeiling: run.maxTokensCeiling,
    limits: DEFAULT_TURN_LIMITS,
    stopSequences: DEFAULT_STOP_SEQUENCES,
    progressUpdates: readsProgressUpdates(run),
    assistantPrefill: capabilities.assistantPrefill,
    recover: recover ? (text, intent) => recover(text, tools.names, intent) : null,
    recoveryEnabled: run.options.textRecovery ?? deps.config.BUILDFLEET_TEXT_RECOVERY,
    newSyntheticId: () => `synthetic_${randomBytes(12).toString('hex')}`,
  });
  deps.hooks?.onDecision?.({ run, response, decision, toolCount: tools.names.length, expectedTool: !run.finishVerified, toolChoice, events: decisionEvents });

  // 5. Commit the answer and its outcome once — with every event that describes them and, when
  // the decision ends the run, the end — then act on it.
  const planned = planOutcome(run, turn, phase, decision, tools.names);
  const fields: Record<string, string> = {
    turn: String(turn + 1),
    counters: JSON.stringify(counters),
    maxTokens: String(nextMaxTokens),
    updatedAt: new Date().toISOString(),
  };
  const askUser = planned.outcome.dispatch.find((call) => call.name === 'ask_user');
  if (askUser) {
    const parsed = toolInputSchemas.ask_user.safeParse(askUser.input);
    if (parsed.success) fields.question = JSON.stringify({ toolUseId: askUser.toolUseId, question: parsed.data.question, turn: turn + 1 });
  }
  // After pause_turn the request ended with the paused assistant message; the continuation
  // belongs to that same message (two assistant messages in a row are invalid).
  const last = messages[messages.length - 1];
  const merged = nextInput?.kind === 'none' && decision.assistant && last?.role === 'assistant' ? mergeContinuation(last, decision.assistant) : null;
  const end = endOf(run, decision);
  const committed = await store.commitAnswer(runId, turn, {
    // What the answer was, for the record: its content is the assistant message in the
    // transcript, so it is not stored a second time.
    // tools_offered, the durations and the index of the assistant message in the transcript are
    // what GET /v1/runs/:id/turns shows of the request (recorded here: no event carries them).
    response: {
      id: response.id,
      model: response.model,
      stop_reason: response.stop_reason,
      stop_sequence: response.stop_sequence,
      usage: response.usage,
      cost_micro_usd: costMicroUsd,
      request_id: requestId,
      tools_offered: tools.names,
      model_duration_ms: Math.round(modelDurationMs),
      turn_duration_ms: Math.round(performance.now() - turnLoadedAt),
      message_index: merged ? messages.length - 1 : decision.assistant ? messages.length : null,
    },
    answerId: response.id,
    usage: response.usage,
    costMicroUsd,
    assistant: merged ?? decision.assistant ?? null,
    placement: merged ? 'replace_last' : 'append',
    fields,
    outcome: planned.outcome,
    events: [
      event('model-response', {
        request_id: requestId,
        stop_reason: response.stop_reason,
        stop_sequence: response.stop_sequence,
        usage: response.usage,
        cost_usd: microUsdToUsd(costMicroUsd),
        tool_uses: response.content.filter((block) => block.type === 'tool_use').map((block) => (block as { name: string }).name),
      }),
      ...decisionEvents.map((fieldsOf) => event(String(fieldsOf.event), fieldsOf)),
      ...planned.events,
      ...planned.outcome.dispatch.filter((call) => call.name !== 'ask_user').map((call) => event('tool-call-dispatch', { tool: call.name, tool_use_id: call.toolUseId, parse_mode: call.parseMode })),
    ],
    answered: planned.answered,
    end,
  });
  if (committed === 'terminal') return done('run_terminal');
  if (committed.committed && end) return done(`run_${end.status}`);
  await dispatch(deps, run, turn, committed.outcome, data.trace, { replay: !committed.committed });
  return done(committed.committed ? decision.kind : 'outcome_replayed');
}

/** The run's end when the decision ends it. A run in skip_writes safe mode cannot pass the
 * finish gate; say so rather than blame the model. */
function endOf(run: RunRecord, decision: TurnDecision) {
  if (decision.kind === 'succeed') return { status: 'succeeded' as const, result: decision.result, error: null };
  if (decision.kind !== 'end') return null;
  const error: { code: RunErrorCode; message: string } =
    run.safeMode === 'skip_writes' && decision.error.code === 'unverified_finish'
      ? { code: 'safe_mode_incomplete', message: `The run continued in skip_writes safe mode after an invalid tool output and could not finish: ${decision.error.message}` }
      : decision.error;
  return { status: decision.status, result: null, error };
}

/** Turns the decision into what the next turn needs. Calls outside the tier or with invalid
 * input are answered right here with an is_error result and never reach a tool worker. */
function planOutcome(
  run: RunRecord,
  turn: number,
  phase: Phase,
  decision: TurnDecision,
  allowed: readonly string[],
): { outcome: TurnOutcome; answered: Array<{ result: StoredToolResult; trail: TrailEntry }>; events: RunEvent[] } {
  switch (decision.kind) {
    case 'tools': {
      const dispatchList: TurnOutcome['dispatch'] = [];
      const answered: Array<{ result: StoredToolResult; trail: TrailEntry }> = [];
      const events: RunEvent[] = [];
      for (const call of decision.calls) {
        const rejection = rejectCall({ call, allowed, planMissing: phase === 'planning' && run.todos.length === 0, finishVerified: run.finishVerified });
        if (rejection) {
          answered.push({
            result: { content: wrapToolError({ toolName: call.name, label: rejection.code, message: rejection.message }), is_error: true, error_code: rejection.code },
            trail: { tool: call.name, ok: false, phase, turn, toolUseId: call.toolUseId, detail: rejection.code },
          });
          events.push({ run_id: run.id, step: turn, event: 'tool-call-reject', tool: call.name, tool_use_id: call.toolUseId, reason: rejection.code });
          continue;
        }
        dispatchList.push({ runId: run.id, turn, toolUseId: call.toolUseId, name: call.name, input: call.input, parseMode: call.parseMode });
      }
      return {
        outcome: { decision: 'tools', nextInput: { kind: 'tool_results', toolUseIds: decision.calls.map((call) => call.toolUseId), note: decision.note }, dispatch: dispatchList },
        answered,
        events,
      };
    }
    case 'continue':
      return { outcome: { decision: 'continue', nextInput: decision.input, dispatch: [] }, answered: [], events: [] };
    case 'succeed':
    case 'end':
      return { outcome: { decision: decision.kind, nextInput: null, dispatch: [] }, answered: [], events: [] };
  }
}

async function dispatch(deps: ModelTurnDependencies, run: RunRecord, turn: number, outcome: TurnOutcome, trace: Record<string, string>, options: { replay: boolean }): Promise<void> {
  if (!outcome.nextInput) return;
  const next: ModelJobData = { runId: run.id, turn: turn + 1, trace };
  // Tool calls are children of the turn that made them; the next turn hangs off the run root.
  const turnContext = activeTraceCarrier();
  const toolTrace = Object.keys(turnContext).length > 0 ? turnContext : trace;
  const toolJobs = outcome.dispatch
    .filter((call) => call.name !== 'ask_user')
    .map((call) => ({ ...call, parseMode: call.parseMode as ToolParseMode, trace: toolTrace }));
  // A call with an effect goes out only once the answer that made it is on a replica, when
  // configured (docs/scaling.md#failover): its job runs on the queue's primary, and were the
  // answer lost with the run's, the resumed turn would make the call again under a new id.
  if (toolJobs.some((call) => WRITE_TOOLS.has(call.name as ToolName))) await deps.store.confirmTurnDurable(run.id, turn, claimDurabilityOf(deps.config));
  // The run's own shard, for life (docs/scaling.md#queue-shards).
  const queues = deps.queues.of(run.queueShard);
  if (toolJobs.length > 0) await queues.enqueueToolFanOut(next, toolJobs, { mayExist: options.replay });
  else await queues.enqueueTurn(next);
}

/**
 * A call that was not made (the pause) or failed: the pause of its scope is set already;
 * the turn's own counters (overload since, rate-limit cycles) are noted; decideModelRetry says what
 * to do. `fail_run` ends the run here; `retry` goes back to the worker for BullMQ.
 */
async function retryOrFail(
  deps: ModelTurnDependencies,
  run: RunRecord,
  turn: number,
  failure: RetryOutcome | { kind: 'paused' } | AdmissionWait,
  message: string,
  job: ModelJobContext,
  error: Error,
  pauseMs: number,
  pauseSet: PauseInForce | OverloadPause | null = null,
  pauseScope: ModelPauseScope | null = null,
): Promise<ModelTurnResult> {
  const { store, config } = deps;
  const now = Date.now();
  const overloadedForMs = failure.kind === 'overloaded' ? Math.max(0, now - (await store.noteTurnOverload(run.id, turn, now))) : 0;
  const rateLimitCycles = failure.kind === 'rate_limited' || failure.kind === 'rate_limited_backoff' ? await store.countRateLimitCycle(run.id, turn) : 0;
  const decision: RetryDecision = decideModelRetry({
    failure,
    message,
    attemptsMade: job.attemptsMade,
    maxAttempts: job.maxAttempts,
    pauseRemainingMs: pauseMs,
    rateLimitCycles,
    maxRateLimitCycles: MAX_RATE_LIMIT_CYCLES,
    overloadedForMs,
    overloadPatienceMs: config.BUILDFLEET_OVERLOAD_PATIENCE_MS,
    backoff: { baseMs: config.BUILDFLEET_RETRY_BASE_MS, rateLimitBaseMs: config.BUILDFLEET_RETRY_BASE_MS * 5, capMs: config.BUILDFLEET_RETRY_CAP_MS },
  });
  if (decision.kind === 'fail_run') {
    await store.endRun(run.id, turn, 'failed', { error: { code: decision.code, message: decision.message } });
    return done(`run_failed:${decision.code}`);
  }
  // Which pause the turn waits behind: its provider and its model's rate-limit class.
  const scopeFields = pauseScope ? { provider: pauseScope.provider, rate_limit_class: pauseScope.rateLimitClass } : {};
  // The pause in force, by Redis's clock (ms): no call of the scope passes its check strictly between the two.
  const windowFields = pauseSet ? { pause_from_ms: pauseSet.atMs, pause_until_ms: pauseSet.atMs + pauseSet.waitMs } : {};
  if (failure.kind === 'overloaded') {
    await store.appendEvent({
      run_id: run.id,
      step: turn,
      event: 'model-overload',
      ...scopeFields,
      wait_ms: pauseMs || null,
      backoff_step: pauseSet && 'step' in pauseSet ? pauseSet.step : null,
      overloaded_for_ms: overloadedForMs,
      patience_ms: config.BUILDFLEET_OVERLOAD_PATIENCE_MS,
      ...windowFields,
    });
  } else if (failure.kind === 'rate_limited' || failure.kind === 'rate_limited_backoff') {
    await store.appendEvent({ run_id: run.id, step: turn, event: 'model-rate-limit', ...scopeFields, wait_ms: decision.delayMs, cycle: rateLimitCycles, ...windowFields, ...(failure.kind === 'rate_limited_backoff' ? { backoff: true } : {}) });
  } else if (failure.kind === 'admission_wait' && failure.limit !== 'booked') {
    // A booked call looking again whether its slot came early says nothing new: one event per wait.
    await store.appendEvent({ run_id: run.id, step: turn, event: 'model-admission-wait', wait_ms: decision.delayMs, limit: failure.limit, booked: failure.booked, priority: failure.priority });
  }
  return { kind: 'retry', delayMs: decision.delayMs, spendsAttempt: decision.spendsAttempt, error };
}
