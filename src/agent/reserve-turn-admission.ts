// Step 3c of a model turn (run-model-turn.ts): admission first (docs/admission.md). The call's
// request, estimated input and max_tokens are reserved from the fleet's shared buckets, or the job
// comes back when they hold them (the same call id claims the slot booked for it), so the pause
// check stays the last step before the call.
import { DEFAULT_RUN_PRIORITY } from '../domain/run-priority.js';
import { admissionCacheHint, type AdmissionReservation } from '../model/model-rate-limiter.js';
import type { AdmissionWait } from './decide-model-retry.js';
import type { TurnRequest } from './build-turn-request.js';
import { retryOrFailTurn } from './retry-or-fail-turn.js';
import type { ModelTurnResult, TurnContext } from './turn-context.js';

/** Reserves the call's capacity: the reservation (null without admission), or the job's wait. */
export async function reserveTurnAdmission({
  context,
  request,
}: {
  context: TurnContext;
  request: TurnRequest;
}): Promise<{ kind: 'go'; reservation: AdmissionReservation | null } | { kind: 'ended'; result: ModelTurnResult }> {
  const { deps, run, runId, turn, provider, capabilities } = context;
  const { system, tools, toolChoice, thinkingRequest } = request;
  const thinking = thinkingRequest.thinking;
  const priority = run.options.priority ?? DEFAULT_RUN_PRIORITY;
  const admission = deps.admission
    ? await deps.admission.reserve({
        // The provider's own buckets: two providers serving one model id have limits of their own.
        provider: { name: provider.name, identity: provider.limiterIdentity },
        model: run.model,
        callId: `${runId}:${turn}`,
        chainId: runId,
        priority,
        inputTokens: request.estimatedPromptTokens,
        outputTokens: request.callMaxTokens,
        // Effort keys the cache as thinking does (a change starts a new prefix, build-with-claude/effort);
        // the prefix is what is sent: a declared_once run's tools are every tool, whatever its phase.
        cache: admissionCacheHint({
          system,
          tools: tools.definitions,
          toolNames: tools.definitions.map((tool) => tool.name),
          toolChoice,
          thinking: thinkingRequest.outputConfig ? { thinking, output_config: thinkingRequest.outputConfig } : thinking,
          tokenizer: capabilities.tokenizer,
          measuredRatio: request.measuredRatio,
        }),
      })
    : null;
  if (admission?.kind === 'wait') {
    const wait: AdmissionWait = { kind: 'admission_wait', waitMs: admission.waitMs, limit: admission.limit, booked: admission.booked, priority };
    const error = new Error(`Waiting ${admission.waitMs} ms for model capacity (${admission.limit}).`);
    return { kind: 'ended', result: await retryOrFailTurn({ context, failure: wait, message: 'admission wait', error, pauseMs: 0 }) };
  }
  return { kind: 'go', reservation: admission?.kind === 'go' ? admission.reservation : null };
}
