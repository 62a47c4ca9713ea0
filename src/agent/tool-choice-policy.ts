// tool_choice for a turn: force the plan on the first call where the model allows it, let the model
// choose afterwards. `any` is never sent every turn: it makes a model call tools it does not need.
// The summary turn after the finish gate keeps `auto` too: tool_choice keys the cached messages
// ("Changes to tool_choice … invalidate message cache", docs build-with-claude/prompt-caching,
// "What invalidates the cache"), so `none` there would write the whole transcript again for one
// request. The summary is asked for in the user message instead, and a call made anyway is refused
// (summary-request.ts).
//
// Forcing is allowed only where the model's capabilities say so and the run does not think:
// - with thinking on, "Tool use with thinking only supports tool_choice: {type: 'auto'} (the
//   default) or tool_choice: {type: 'none'}" (docs build-with-claude/extended-thinking, "Extended
//   thinking with tool use"); `any` or `tool` is a 400;
// - Claude Sonnet 5.5, Opus 5.5 and Fable / Mythos 5.1+ refuse `any` and `tool` outright ("Forced
//   tool use returns an error", their whats-new pages), thinking or not (capabilities.forcedToolChoice).
// Where the plan cannot be forced, the first message asks for it in words (PLAN_FIRST_INSTRUCTION),
// and the planning tier (todo_write only), the refusal of build tools before a plan
// (reject-call.ts) and the finish gate still keep the run from building before the plan exists.
import type { ModelCapabilities } from '../domain/model-capabilities.js';
import type { RunThinkingMode } from '../domain/resolve-run-model-settings.js';
import type { ToolChoice } from '../domain/tool-choice.js';

/** Sent with the first user message of a run whose plan tool_choice cannot force. */
export const PLAN_FIRST_INSTRUCTION =
  'Start by calling todo_write with the plan of the build (todos with phase "build" and "verify"). ' + 'No other tool is available until the plan exists.';

/** Whether a run may send a forced tool_choice at all: its model accepts one and it does not think. */
export function mayForceToolChoice({
  capabilities,
  thinking,
}: {
  capabilities: Pick<ModelCapabilities, 'forcedToolChoice'>;
  thinking: RunThinkingMode;
}): boolean {
  return capabilities.forcedToolChoice && thinking === 'off';
}

/** `planDue`: the agent has the plan-first rule, the run is in its first phase and has no plan. */
export function chooseToolChoice(input: { planDue: boolean; mayForce: boolean }): ToolChoice {
  if (input.planDue && input.mayForce) return { type: 'tool', name: 'todo_write' };
  return { type: 'auto' };
}
