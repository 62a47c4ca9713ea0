// Step 4 of a model turn (run-model-turn.ts): the decision, exhaustive over stop_reason
// (stop-reason-handler.ts), with the finish gate and text recovery the run is held to.
import { randomBytes } from 'node:crypto';
import { readsProgressUpdates } from '../domain/model-written-text.js';
import { DEFAULT_STOP_SEQUENCES, DEFAULT_TURN_LIMITS, handleStopReason, type StopReasonOutput } from './stop-reason-handler.js';
import { verifiedFinishSummary } from './summary-request.js';
import type { TurnRequest } from './build-turn-request.js';
import type { TurnAnswer } from './call-model-for-turn.js';
import type { TurnContext } from './turn-context.js';

/** Decides what the answer means for the run, and tells the decision hook. */
export function decideTurnFromAnswer({ context, request, answer }: { context: TurnContext; request: TurnRequest; answer: TurnAnswer }): StopReasonOutput {
  const { deps, run, view, messages, capabilities, agent } = context;
  const { response } = answer;
  const { tools } = request;
  const gateMissing = agent.finishGate({ todos: run.todos, trail: view.trail, deployments: { latest: run.latestDeploy, live: run.liveDeploy } });
  const recover = deps.recover;
  const decided = handleStopReason({
    response,
    finishVerified: run.finishVerified,
    finishGateMissing: gateMissing,
    finishSummary: run.finishVerified ? verifiedFinishSummary(messages) : null,
    counters: run.counters,
    currentMaxTokens: request.maxTokens,
    maxTokensCeiling: run.maxTokensCeiling,
    limits: DEFAULT_TURN_LIMITS,
    stopSequences: DEFAULT_STOP_SEQUENCES,
    progressUpdates: readsProgressUpdates(run),
    assistantPrefill: capabilities.assistantPrefill,
    recover: recover ? (text, intent) => recover(text, tools.names, intent) : null,
    recoveryEnabled: run.options.textRecovery ?? deps.config.BUILDFLEET_TEXT_RECOVERY,
    newSyntheticId: () => `synthetic_${randomBytes(12).toString('hex')}`,
  });
  deps.hooks?.onDecision?.({
    run,
    response,
    decision: decided.decision,
    toolCount: tools.names.length,
    expectedTool: !run.finishVerified,
    toolChoice: request.toolChoice,
    events: decided.events,
  });
  return decided;
}
