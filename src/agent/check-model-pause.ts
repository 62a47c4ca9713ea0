// Step 3d of a model turn (run-model-turn.ts): the pause of the call's scope (its provider's
// identity and its model's rate-limit class), checked right before the call. Nothing is awaited
// between the check and the request going out (turn-start is written alongside the call: call-
// model-for-turn.ts), and a turn that waits writes no turn-start for the attempt it did not make.
import { rateLimitClassOf } from '../domain/model-capabilities.js';
import type { ModelPauseScope, PauseCheck } from '../model/model-call-pause.js';
import type { AdmissionReservation } from '../model/model-rate-limiter.js';
import { retryOrFailTurn } from './retry-or-fail-turn.js';
import { settleAdmission } from './settle-admission.js';
import type { ModelTurnResult, TurnContext } from './turn-context.js';

/** Checks the pause of the call's scope: clear to call (with the check), or the job's wait. */
export async function checkModelPause({
  context,
  reservation,
}: {
  context: TurnContext;
  reservation: AdmissionReservation | null;
}): Promise<{ kind: 'clear'; pause: PauseCheck | null; pauseScope: ModelPauseScope } | { kind: 'ended'; result: ModelTurnResult }> {
  const { deps, run, provider } = context;
  const pauseScope: ModelPauseScope = {
    provider: provider.name,
    identity: provider.limiterIdentity,
    rateLimitClass: rateLimitClassOf({ model: run.model, overrides: deps.config.BUILDFLEET_MODEL_CAPABILITIES }),
  };
  const pause: PauseCheck | null = (await deps.modelPause?.check(pauseScope)) ?? null;
  if (!pause || pause.remainingMs <= 0) return { kind: 'clear', pause, pauseScope };
  if (reservation) await settleAdmission({ context, settle: () => deps.admission?.release(reservation) });
  const message = `The model pause of provider ${pauseScope.provider}, class ${pauseScope.rateLimitClass} is in force.`;
  const result = await retryOrFailTurn({
    context,
    failure: { kind: 'paused' },
    message: 'paused',
    error: new Error(message),
    pauseMs: pause.remainingMs,
    pauseSet: null,
    pauseScope,
  });
  return { kind: 'ended', result };
}
