// The stop-reason matrix: one simulator scenario per case the turn logic must handle, with the
// terminal state a correct runtime reaches. `buildfleet scenarios` and the test suite both run it.
import type { TerminalStatus } from '../engine/index.js';

export interface ScenarioExpectation {
  scenario: string;
  /** What the case exercises, for the printed table. */
  exercises: string;
  expectedStatus: TerminalStatus;
  expectedErrorCode?: string;
  /** Sent with POST /input when the run waits for the user. */
  answer?: string;
  /** A check on the final result text, when the case is about the answer itself. */
  resultIncludes?: string[];
}

export const SCENARIO_MATRIX: readonly ScenarioExpectation[] = [
  { scenario: 'happy', exercises: 'the whole build', expectedStatus: 'succeeded' },
  { scenario: 'multi_block_text', exercises: 'end_turn answer = every text block', expectedStatus: 'succeeded' },
  { scenario: 'empty_end_turn', exercises: 'end_turn with no text', expectedStatus: 'succeeded' },
  { scenario: 'premature_end_turn', exercises: 'end_turn before the finish gate', expectedStatus: 'succeeded' },
  { scenario: 'parallel_tool_fail', exercises: 'parallel tool_use, one fails', expectedStatus: 'succeeded' },
  { scenario: 'max_tokens_text', exercises: 'max_tokens inside text', expectedStatus: 'succeeded' },
  { scenario: 'max_tokens_tool_use', exercises: 'max_tokens inside a tool_use', expectedStatus: 'succeeded' },
  { scenario: 'max_tokens_after_tool_use', exercises: 'max_tokens after a complete tool_use', expectedStatus: 'succeeded' },
  { scenario: 'stop_sequence_end', exercises: 'stop_sequence \\n---END---', expectedStatus: 'succeeded' },
  { scenario: 'stop_sequence_user', exercises: 'stop_sequence \\nUser: (drift)', expectedStatus: 'succeeded' },
  { scenario: 'pause_turn', exercises: 'pause_turn', expectedStatus: 'succeeded' },
  { scenario: 'refusal', exercises: 'refusal', expectedStatus: 'refused', expectedErrorCode: 'refused' },
  {
    scenario: 'context_window_exceeded',
    exercises: 'model_context_window_exceeded',
    expectedStatus: 'failed',
    expectedErrorCode: 'context_window_exceeded',
  },
  { scenario: 'unknown_stop_reason', exercises: 'a stop_reason nobody knows', expectedStatus: 'failed', expectedErrorCode: 'unexpected_stop' },
  { scenario: 'ask_user', exercises: 'ask_user → waiting_for_input → input', expectedStatus: 'succeeded', answer: 'Warm colors, please.' },
  { scenario: 'text_tool_calls', exercises: 'tool calls written as text', expectedStatus: 'succeeded' },
  {
    scenario: 'tool_call_after_finish',
    exercises: 'a tool call after the finish gate: refused, summary asked again',
    expectedStatus: 'succeeded',
    resultIncludes: ['built, verified and published'],
  },
  {
    scenario: 'tool_calls_after_finish_always',
    exercises: 'tool calls after the finish gate, every turn: bounded',
    expectedStatus: 'succeeded',
    // The summary finish_turn carried: the model never wrote one of its own.
    resultIncludes: ['deployed it, checked the live page'],
  },
];
