// tool_choice for a turn: force the plan on the first call, let the model choose afterwards. `any`
// is never sent every turn: it makes a model call tools it does not need. The summary turn after
// the finish gate keeps `auto` too: tool_choice keys the cached messages ("Changes to tool_choice
// … invalidate message cache", docs build-with-claude/prompt-caching, "What invalidates the
// cache"), so `none` there would write the whole transcript again for one request. The summary is
// asked for in the user message instead, and a call made anyway is refused (summary-request.ts).
//
// With extended thinking on, only `auto` and `none` are allowed: "Tool use with thinking only
// supports tool_choice: {type: 'auto'} (the default) or tool_choice: {type: 'none'}" (docs
// build-with-claude/extended-thinking, "Extended thinking with tool use"); `any` or `tool` is a
// 400. Such a run asks for the plan in words instead (PLAN_FIRST_INSTRUCTION), and the planning
// tier plus the finish gate still keep it from building before the plan exists.
import type { Phase } from '../domain/profile.js';
import type { ToolChoice } from '../domain/tool-choice.js';

/** Sent with the first user message of a thinking run, where tool_choice cannot force the plan. */
export const PLAN_FIRST_INSTRUCTION =
  'Start by calling todo_write with the plan of the build (todos with phase "build" and "verify"). ' +
  'No other tool is available until the plan exists.';

export function chooseToolChoice(input: { phase: Phase; hasPlan: boolean; thinking: boolean }): ToolChoice {
  if (input.phase === 'planning' && !input.hasPlan && !input.thinking) return { type: 'tool', name: 'todo_write' };
  return { type: 'auto' };
}
