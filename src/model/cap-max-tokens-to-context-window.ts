// The max_tokens a call sends: the run's, lowered so the estimated prompt plus max_tokens fits the
// model's context window. Claude 3.7 Sonnet and the Claude 4 models before 4.5 answer a request
// over the window with a 400 ("input length and `max_tokens` exceed context limit"); newer models
// accept it and stop with model_context_window_exceeded once generation reaches the window (docs
// build-with-claude/extended-thinking, "Max tokens and context window size"; docs
// build-with-claude/handling-stop-reasons). Thinking counts against max_tokens and budget_tokens
// must stay below it, so the cap never goes under the budget plus room for an answer: when even
// that does not fit, the call goes anyway and the API's answer (the 400, or
// model_context_window_exceeded → context_window_exceeded) ends the run.

/** The least answer room a call keeps, beyond its thinking budget, however full the window is. */
export const MINIMUM_ANSWER_TOKENS = 1024;

/** max_tokens for one call: at most `maxTokens`, at most what the window leaves, at least the floor. */
export function capMaxTokensToContextWindow({
  maxTokens,
  contextWindowTokens,
  estimatedPromptTokens,
  thinkingBudgetTokens,
}: {
  /** The run's max_tokens (raised after truncations); the cap only ever lowers it. */
  maxTokens: number;
  contextWindowTokens: number;
  estimatedPromptTokens: number;
  /** null when the run does not think. */
  thinkingBudgetTokens: number | null;
}): number {
  const leftInWindow = contextWindowTokens - estimatedPromptTokens;
  const floor = Math.min(maxTokens, (thinkingBudgetTokens ?? 0) + MINIMUM_ANSWER_TOKENS);
  return Math.min(maxTokens, Math.max(floor, leftInWindow));
}
