// A model call that threw (call-model-for-turn.ts): the scope's pause first, then the admission
// settle, the spend-limit flag, the charge of a stream paid for before it broke, the metric hook
// and the `model-call-fail` event; retryOrFailTurn says what the job does next.
import { randomBytes } from 'node:crypto';
import { costOfAnswer, microUsdToUsd } from '../domain/usage-cost.js';
import { paidUsageOfFailedCall } from '../model/model-client.js';
import { classifyModelError } from '../model/classify-model-error.js';
import type { ModelPauseScope, OverloadPause, PauseInForce } from '../model/model-call-pause.js';
import type { AdmissionReservation } from '../model/model-rate-limiter.js';
import type { TurnRequest } from './build-turn-request.js';
import { retryOrFailTurn } from './retry-or-fail-turn.js';
import { settleAdmission } from './settle-admission.js';
import { RunEndedDuringCall } from './watch-run-end.js';
import type { TerminalStatus } from '../domain/run-outcomes.js';
import type { ModelTurnResult, TurnContext } from './turn-context.js';

/** A model call that threw, as call-model-for-turn.ts hands it over. */
interface FailedModelCall {
  context: TurnContext;
  request: TurnRequest;
  error: unknown;
  reservation: AdmissionReservation | null;
  pauseScope: ModelPauseScope;
  /** The request id the stream reported before it failed, if any. */
  requestId: string | null;
  callStarted: number;
  /** Set when the fleet stopped the call because its run ended meanwhile (watch-run-end.ts). */
  runEndedAs?: TerminalStatus;
}

/** A stream that broke after it started was paid for: the run, its budget and its tenant count it. */
async function chargePaidPart({ context, error, callId }: { context: TurnContext; error: unknown; callId: string | null }) {
  const { deps, run, runId, turn } = context;
  const paidUsage = paidUsageOfFailedCall(error);
  const paidCostMicroUsd = paidUsage ? costOfAnswer({ model: run.model, usage: paidUsage, overrides: deps.config.BUILDFLEET_MODEL_PRICES }).costMicroUsd : 0;
  if (paidUsage)
    await deps.store.chargeFailedCall(runId, turn, { callId: callId ?? randomBytes(8).toString('hex'), usage: paidUsage, costMicroUsd: paidCostMicroUsd });
  return { paidUsage, paidCostMicroUsd };
}

/** A call the fleet stopped because its run ended while it streamed (watch-run-end.ts): its admission
 * settled, what it had cost charged, `model-call-fail` with outcome `run_ended` — and nothing more:
 * no pause, no retry, the run's end stands. */
async function recordStoppedCall({
  context,
  request,
  error,
  reservation,
  requestId,
  callStarted,
  runEndedAs,
}: Omit<FailedModelCall, 'pauseScope'> & { runEndedAs: TerminalStatus }): Promise<ModelTurnResult> {
  const { deps, run, provider, job } = context;
  const failure = provider.describeError(error);
  if (reservation) await settleAdmission({ context, settle: () => deps.admission?.settleFailure(reservation, failure) });
  const { paidUsage, paidCostMicroUsd } = await chargePaidPart({ context, error, callId: failure.requestId ?? requestId });
  const durationMs = performance.now() - callStarted;
  const outcome = { kind: 'run_ended' } as const;
  deps.hooks?.onModelCall?.({
    run,
    toolCount: request.tools.names.length,
    durationMs,
    outcome,
    ...(paidUsage ? { paidUsage, costMicroUsd: paidCostMicroUsd } : {}),
  });
  const message = new RunEndedDuringCall(runEndedAs).message;
  await context.emit('model-call-fail', {
    status: null,
    error_type: null,
    outcome: outcome.kind,
    message,
    request_id: failure.requestId ?? requestId,
    attempt: job.attemptsMade + 1,
    duration_ms: Math.round(durationMs),
    ...(paidUsage ? { usage: paidUsage, cost_usd: microUsdToUsd(paidCostMicroUsd) } : {}),
  });
  return { kind: 'done', detail: message };
}

/** Records what a failed call did and cost, and decides the job's retry or the run's end. */
export async function recordFailedModelCall({
  context,
  request,
  error,
  reservation,
  pauseScope,
  requestId,
  callStarted,
  runEndedAs,
}: FailedModelCall): Promise<ModelTurnResult> {
  const { deps, run, runId, provider, job } = context;
  if (runEndedAs) return recordStoppedCall({ context, request, error, reservation, requestId, callStarted, runEndedAs });
  const failure = provider.describeError(error);
  const outcome = classifyModelError(failure);
  // The scope's pause first, before anything else can let another of its calls out.
  const pauseSet: PauseInForce | OverloadPause | null =
    outcome.kind === 'overloaded'
      ? ((await deps.modelPause?.overloaded(pauseScope)) ?? null)
      : outcome.kind === 'rate_limited'
        ? ((await deps.modelPause?.pause(pauseScope, outcome.waitMs)) ?? null)
        : null;
  if (reservation) await settleAdmission({ context, settle: () => deps.admission?.settleFailure(reservation, failure) });
  const failureRequestId = failure.requestId ?? requestId;
  if (outcome.kind === 'spend_cap') {
    await deps.spendLimit?.set({ message: failure.message, model: run.model, runId, requestId: failureRequestId });
  }
  const { paidUsage, paidCostMicroUsd } = await chargePaidPart({ context, error, callId: failureRequestId });
  const durationMs = performance.now() - callStarted;
  deps.hooks?.onModelCall?.({
    run,
    toolCount: request.tools.names.length,
    durationMs,
    outcome,
    ...(paidUsage ? { paidUsage, costMicroUsd: paidCostMicroUsd } : {}),
  });
  await context.emit('model-call-fail', {
    status: failure.status ?? null,
    error_type: failure.errorType ?? null,
    outcome: outcome.kind,
    message: failure.message,
    request_id: failureRequestId,
    attempt: job.attemptsMade + 1,
    duration_ms: Math.round(durationMs),
    ...(paidUsage ? { usage: paidUsage, cost_usd: microUsdToUsd(paidCostMicroUsd) } : {}),
  });
  return retryOrFailTurn({
    context,
    failure: outcome,
    message: failure.message,
    error: error instanceof Error ? error : new Error(failure.message),
    pauseMs: pauseSet?.waitMs ?? 0,
    pauseSet,
    pauseScope,
  });
}
