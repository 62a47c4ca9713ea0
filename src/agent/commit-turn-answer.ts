// Step 5 of a model turn (run-model-turn.ts): commit the answer and its outcome once — with every
// event that describes them and, when the decision ends the run, the end — in one engine step.
import { toolInputSchemas } from '../domain/tool-input-schemas.js';
import { microUsdToUsd } from '../domain/usage-cost.js';
import { type RunEvent, type TurnOutcome } from '../engine/index.js';
import { mergeContinuation, type StopReasonOutput } from './stop-reason-handler.js';
import { planTurnOutcome } from './plan-turn-outcome.js';
import { runEndOfDecision } from './run-end-of-decision.js';
import type { TurnRequest } from './build-turn-request.js';
import type { TurnAnswer } from './call-model-for-turn.js';
import { done, type ModelTurnResult, type TurnContext } from './turn-context.js';

/** Commits the answer: the outcome that stands (this one, or one committed first) to dispatch, or how the job ends. */
export async function commitTurnAnswer({
  context,
  request,
  answer,
  decided,
}: {
  context: TurnContext;
  request: TurnRequest;
  answer: TurnAnswer;
  decided: StopReasonOutput;
}): Promise<{ kind: 'committed'; outcome: TurnOutcome; replay: boolean; detail: string } | { kind: 'ended'; result: ModelTurnResult }> {
  const { deps, run, runId, turn, messages, nextInput, event } = context;
  const { response, costMicroUsd } = answer;
  const { decision, counters, maxTokens: nextMaxTokens, events: decisionEvents } = decided;
  const planned = planTurnOutcome({ agent: context.agent, run, turn, phase: context.phase, decision, allowed: request.tools.names });
  const askUser = planned.outcome.dispatch.find((call) => call.name === 'ask_user');
  const askedQuestion = askUser ? toolInputSchemas.ask_user.safeParse(askUser.input) : null;
  const next = {
    counters,
    maxTokens: nextMaxTokens,
    question: askUser && askedQuestion?.success ? { toolUseId: askUser.toolUseId, question: askedQuestion.data.question } : null,
  };
  // After pause_turn the request ended with the paused assistant message; the continuation
  // belongs to that same message (two assistant messages in a row are invalid).
  const last = messages[messages.length - 1];
  const merged = nextInput?.kind === 'none' && decision.assistant && last?.role === 'assistant' ? mergeContinuation(last, decision.assistant) : null;
  const end = runEndOfDecision({ run, decision });
  const committed = await deps.store.commitAnswer(runId, turn, {
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
      request_id: answer.requestId,
      tools_offered: request.tools.names,
      model_duration_ms: Math.round(answer.modelDurationMs),
      turn_duration_ms: Math.round(performance.now() - context.turnLoadedAt),
      message_index: merged ? messages.length - 1 : decision.assistant ? messages.length : null,
    },
    answerId: response.id,
    usage: response.usage,
    costMicroUsd,
    assistant: merged ?? decision.assistant ?? null,
    placement: merged ? 'replace_last' : 'append',
    next,
    outcome: planned.outcome,
    events: [
      event('model-call-end', {
        request_id: answer.requestId,
        stop_reason: response.stop_reason,
        stop_sequence: response.stop_sequence,
        usage: response.usage,
        cost_usd: microUsdToUsd(costMicroUsd),
        tool_uses: response.content.filter((block) => block.type === 'tool_use').map((block) => (block as { name: string }).name),
        // The call's own timing, for the run's waterfall: the event is written after the answer is
        // handled, so its `at` is later than the call's end.
        duration_ms: Math.round(answer.modelDurationMs),
        ...(answer.firstTokenMs === null ? {} : { first_token_ms: Math.round(answer.firstTokenMs) }),
      }),
      ...decisionEvents.map((draft): RunEvent => ({ run_id: runId, step: turn, ...draft })),
      ...planned.events,
      ...planned.outcome.dispatch
        .filter((call) => call.name !== 'ask_user')
        .map((call) => event('tool-call-dispatch', { tool: call.name, tool_use_id: call.toolUseId, parse_mode: call.parseMode })),
    ],
    answered: planned.answered,
    end,
  });
  if (committed === 'terminal') return { kind: 'ended', result: done('run_terminal') };
  if (committed.committed && end) return { kind: 'ended', result: done(`run_${end.status}`) };
  return { kind: 'committed', outcome: committed.outcome, replay: !committed.committed, detail: committed.committed ? decision.kind : 'outcome_replayed' };
}
