// Step 1a of a model turn (run-model-turn.ts): the user input this turn adds to the transcript —
// the prompt, the previous turn's tool results, or its text — and the events that describe it,
// unless an earlier attempt committed it already. A question to the user parks the run instead.
import type { SystemMessage, TranscriptMessage, UserMessage } from '../domain/model-message.js';
import { type RunEvent } from '../engine/index.js';
import { phaseMessage } from './phase-tools.js';
import { PLAN_FIRST_INSTRUCTION } from './tool-choice-policy.js';
import { buildToolResultsMessage, textMessage } from './turn-input.js';
import { noteForToolResults } from './summary-request.js';
import { done, type LoadedTurn, type ModelTurnResult, type TurnReload } from './turn-context.js';

export interface TurnInput {
  kind: 'input';
  messages: Array<UserMessage | SystemMessage>;
  events: RunEvent[];
}

/** Builds the turn's input (empty when committed already), or says how the attempt ends. */
export async function prepareTurnInput({
  loaded,
  mayReload,
}: {
  loaded: LoadedTurn;
  mayReload: boolean;
}): Promise<TurnInput | TurnReload | { kind: 'ended'; result: ModelTurnResult }> {
  const { deps, view, run, runId, turn, nextInput, phase, event } = loaded;
  const ended = (result: ModelTurnResult) => ({ kind: 'ended' as const, result });
  const inputMessages: Array<UserMessage | SystemMessage> = [];
  const inputEvents: RunEvent[] = [];
  if (view.turn.inputCommitted) return { kind: 'input', messages: inputMessages, events: inputEvents };
  if (view.previousOutcome && !nextInput) return ended(done('previous_turn_ended_run'));
  const question = run.question;
  if (nextInput?.kind === 'tool_results' && question && nextInput.toolUseIds.includes(question.toolUseId) && !view.results.get(question.toolUseId)) {
    const parked = await deps.store.parkForInput(runId, turn, question);
    if (parked === 'parked') return ended(done('waiting_for_input'));
    if (parked === 'terminal') return ended(done('run_terminal'));
    // The answer arrived between the load and the park: load again, with it.
    if (mayReload) return { kind: 'reload' };
  }
  if (!nextInput) {
    // A run whose tool_choice cannot force the plan (its model refuses forcing, or it thinks)
    // asks for it in the first message.
    const first = textMessage(run.prompt);
    if (loaded.agent.planFirst && !loaded.mayForce && Array.isArray(first.content)) first.content.push({ type: 'text', text: PLAN_FIRST_INSTRUCTION });
    inputMessages.push(first);
  } else if (nextInput.kind === 'tool_results') {
    // After the finish gate the message ends with the request for the summary (summary-request.ts).
    const built = buildToolResultsMessage(view.results, nextInput.toolUseIds, noteForToolResults({ finishVerified: run.finishVerified, note: nextInput.note }));
    if (built.missing.length > 0) inputEvents.push(event('tool-result-miss', { level: 'warn', tool_use_ids: built.missing }));
    inputMessages.push(built.message);
  } else if (nextInput.kind === 'text') inputMessages.push(textMessage(nextInput.text));
  if (phase !== run.phase) inputEvents.push(event('phase-change', { from: run.phase, to: phase }));
  // The phase's instructions and tool changes, right after the user message (a system message
  // must follow a user turn); a turn without one (a pause_turn continuation) leaves them to the
  // next turn, while the fleet already holds calls to the new tier.
  if (loaded.layout === 'declared_once' && inputMessages.length > 0) {
    const message = phaseMessage({
      agent: loaded.agent,
      messages: [...(view.messages as TranscriptMessage[]), ...inputMessages],
      phase,
      note: loaded.safeModeNote,
    });
    if (message) {
      inputMessages.push(message);
      inputEvents.push(
        event('phase-message-add', {
          phase,
          tool_changes: Array.isArray(message.content) ? message.content.filter((block) => block.type !== 'text').length : 0,
        }),
      );
    }
  }
  return { kind: 'input', messages: inputMessages, events: inputEvents };
}
