// The simulator's scenarios, picked per request with header `x-buildfleet-scenario` (a run's
// `options.scenario`). Each bends one turn of an otherwise normal build at a fixed point of the
// transcript (src/sim/apply-scenario.ts). In the domain because the API refuses a run naming one the
// simulator does not have at submit, rather than queueing it to fail at its first call.

export const SCENARIO_NAMES = [
  'happy',
  'multi_block_text',
  'empty_end_turn',
  'premature_end_turn',
  'parallel_tool_fail',
  'max_tokens_text',
  'max_tokens_tool_use',
  'max_tokens_after_tool_use',
  'stop_sequence_end',
  'stop_sequence_user',
  'pause_turn',
  'refusal',
  'context_window_exceeded',
  'unknown_stop_reason',
  'ask_user',
  'text_tool_calls',
  'redacted_thinking',
  'tool_call_after_finish',
  'tool_calls_after_finish_always',
  'invalid_tool_input',
  // Adversarial (apply-scenario.ts): ids the real API never sends, for the fleet's hardening.
  'hostile_tool_use_ids',
  'long_tool_use_ids',
] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

export function isScenarioName(value: string): value is ScenarioName {
  return (SCENARIO_NAMES as readonly string[]).includes(value);
}
