// Step 3e of a model turn (run-model-turn.ts): the model call. turn-start goes out alongside the
// call (queued on the same connection ahead of every later event of the turn, so the stream keeps
// its order), progress events while the answer streams; a call that throws is recorded and
// decided (record-failed-model-call.ts), an answer is priced once and settles the admission.
import type { ModelResponse } from '../domain/model-message.js';
import { costOfAnswer } from '../domain/usage-cost.js';
import type { ModelStreamProgress } from '../model/model-client.js';
import type { ModelPauseScope, PauseCheck } from '../model/model-call-pause.js';
import type { AdmissionReservation } from '../model/model-rate-limiter.js';
import type { TurnRequest } from './build-turn-request.js';
import { recordFailedModelCall } from './record-failed-model-call.js';
import { sendModelRequest, type ModelCallProgress } from './send-model-request.js';
import { watchRunEnd } from './watch-run-end.js';
import { settleAdmission } from './settle-admission.js';
import type { ModelTurnResult, TurnContext } from './turn-context.js';

/** Progress events go out while the answer streams; each is awaited (written()) before the turn
 * moves on, so none lands after the model-call-end event. */
function progressEvents(context: TurnContext, lost: (what: string) => (error: unknown) => void) {
  const writes: Array<Promise<unknown>> = [];
  const onProgress = (progress: ModelStreamProgress) => {
    writes.push(
      context
        .emit('model-progress', {
          output_tokens: progress.outputTokens,
          estimated: progress.estimated,
          block: progress.blockKind,
          tool: progress.tool,
          blocks: progress.blocks,
          elapsed_ms: progress.elapsedMs,
          reason: progress.reason,
        })
        .catch(lost('model-progress')),
    );
  };
  return { onProgress, written: () => Promise.allSettled(writes) };
}

/** The model's answer, as the turn commits it. */
export interface TurnAnswer {
  response: ModelResponse;
  requestId: string | null;
  /** The answer's cost, priced once when it arrives and committed with it (domain/usage-cost.ts). */
  costMicroUsd: number;
  modelDurationMs: number;
  /** From the request to the answer's first token; null when the provider reported none. */
  firstTokenMs: number | null;
}

/** Calls the model: its answer, or how the job ends after a failed call. */
export async function callModelForTurn({
  context,
  request,
  reservation,
  pause,
  pauseScope,
}: {
  context: TurnContext;
  request: TurnRequest;
  reservation: AdmissionReservation | null;
  pause: PauseCheck | null;
  pauseScope: ModelPauseScope;
}): Promise<{ kind: 'answered'; answer: TurnAnswer } | { kind: 'ended'; result: ModelTurnResult }> {
  const { deps, run, runId, turn, job } = context;
  const lost = (what: string) => (error: unknown) =>
    deps.logger.warn({ run_id: runId, step: turn, err: error instanceof Error ? error.message : String(error) }, `${what} event lost`);
  const turnStartWrite = context.emit('turn-start', {
    phase: context.phase,
    tools: request.tools.names.length,
    tool_choice: request.toolChoice.type,
    tool_layout: context.layout,
    strict_tools: request.strict,
    max_tokens: request.callMaxTokens,
    thinking: run.thinking,
    thinking_budget_tokens: run.thinkingBudgetTokens,
    ...(run.effort ? { effort: run.effort } : {}),
    attempt: job.attemptsMade + 1,
    // When this call passed the pause check, by Redis's clock (model-call-pause.ts PauseCheck).
    ...(pause ? { pause_checked_at_ms: pause.atMs } : {}),
  });
  const callStarted = performance.now();
  const sentAt = Date.now();
  const turnStarted = turnStartWrite.then(() => undefined, lost('turn-start'));
  const progress = progressEvents(context, lost);
  // A run cancelled (elsewhere) while its answer streams stops the call rather than paying for it.
  const runEnd = watchRunEnd({
    statusOf: (id) => deps.store.statusOf(id),
    runId,
    intervalMs: deps.config.BUILDFLEET_MODEL_PROGRESS_INTERVAL_MS,
    logger: deps.logger,
  });
  const call: ModelCallProgress = { requestId: null, firstTokenAt: null, onProgress: progress.onProgress, signal: runEnd.signal };
  let answered: Awaited<ReturnType<typeof sendModelRequest>>;
  try {
    answered = await sendModelRequest({ context, request, call });
  } catch (error) {
    await turnStarted;
    await progress.written();
    const endedAs = runEnd.endedAs();
    const failed = { context, request, error, reservation, pauseScope, requestId: call.requestId, callStarted, ...(endedAs ? { runEndedAs: endedAs } : {}) };
    return { kind: 'ended', result: await recordFailedModelCall(failed) };
  } finally {
    runEnd.stop();
  }
  const { response } = answered;
  await turnStarted;
  await progress.written();
  // The API answered: an overload episode, if one was going on, is over.
  if (pause?.overloadEpisode) await deps.modelPause?.succeeded(pauseScope, sentAt);
  if (reservation)
    await settleAdmission({
      context,
      settle: () =>
        deps.admission?.settleAnswer(reservation, { usage: response.usage, headers: answered.headers, headersReceivedAt: answered.headersReceivedAt }),
    });
  const costMicroUsd = costOfAnswer({ model: run.model, usage: response.usage, overrides: deps.config.BUILDFLEET_MODEL_PRICES }).costMicroUsd;
  const modelDurationMs = performance.now() - callStarted;
  deps.hooks?.onModelCall?.({ run, toolCount: request.tools.names.length, durationMs: modelDurationMs, response, costMicroUsd });
  const firstTokenMs = call.firstTokenAt === null ? null : call.firstTokenAt - callStarted;
  return { kind: 'answered', answer: { response, requestId: call.requestId, costMicroUsd, modelDurationMs, firstTokenMs } };
}
