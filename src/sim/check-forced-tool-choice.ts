// Forced tool use (`tool_choice` `any` / `tool`) per model generation:
// - refused outright on Sonnet 5.5, Opus 5.5, Fable / Mythos 5.1 and later: 400 `tool_choice: type
//   "tool" and "any" are not supported for this model.` (models/fable-5-1/whats-new-fable-5-1#forced-
//   tool-use-is-not-supported, models/opus-5-5/whats-new-opus-5-5#forced-tool-use-is-not-supported,
//   models/sonnet-5-5/migration-guide#forced-tool-use);
// - with manual thinking refused everywhere ("Tool use with thinking only supports tool_choice:
//   {type: auto} … or {type: none}", build-with-claude/extended-thinking; the live wording below);
// - with adaptive thinking accepted and the answer thinks nothing ("a forced tool call skips
//   thinking", models/fable-5-1/whats-new-fable-5-1), and on Haiku 5.5 accepted with "no thinking
//   block" (models/haiku-5-5/migration-guide#configure-thinking) — add-thinking.ts leaves it out.
import type { ThinkingSetting, ToolChoice } from './messages-request.js';
import type { ModelDescription } from './model-catalog.js';

/** The 400 message for a forced tool_choice the model refuses, or null. */
export function checkForcedToolChoice({
  toolChoice,
  thinking,
  model,
}: {
  toolChoice: ToolChoice;
  thinking: ThinkingSetting;
  model: ModelDescription;
}): string | null {
  if (toolChoice.type !== 'any' && toolChoice.type !== 'tool') return null;
  if (model.forcedToolChoice === 'refused') return 'tool_choice: type "tool" and "any" are not supported for this model.';
  if (thinking.type === 'enabled' && thinking.adaptive !== true) return 'Thinking may not be enabled when tool_choice forces tool use.';
  return null;
}
