// What the stop-reason handler's steps (decide-*.ts) share for one response, passed as one object:
// the input, the response's content, and what the decision changes as it is made — the turn's
// counters, the events it reports and the run's max_tokens.
import { type RunCounters } from '../engine/index.js';
import type { AssistantBlock, ToolUseBlock } from '../domain/model-message.js';
import type { DecisionEvent, StopReasonInput, StopReasonOutput, TurnDecision } from './stop-reason-types.js';

export interface StopReasonState {
  input: StopReasonInput;
  content: AssistantBlock[];
  toolUses: ToolUseBlock[];
  /** A copy of the run's counters, counted into by the steps. */
  counters: RunCounters;
  events: DecisionEvent[];
  /** The run's max_tokens from now on (raised by a truncation). */
  maxTokens: number;
}

/** The handler's output for `decision`, with what the steps counted and reported. */
export function decisionOutput({ state, decision }: { state: StopReasonState; decision: TurnDecision }): StopReasonOutput {
  return { decision, counters: state.counters, maxTokens: state.maxTokens, events: state.events };
}
