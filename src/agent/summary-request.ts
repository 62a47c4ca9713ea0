// The summary turn: once the finish gate has passed (finish_turn succeeded), the model's next
// answer is the run's final summary. That request keeps the prefix of the turn before it — the
// same tools, system prompt and tool_choice (`auto`) — because changing any of them makes the
// request write the whole transcript into the cache again, at 1.25× input, for one request nobody
// reads after (docs build-with-claude/prompt-caching, "What invalidates the cache": tools
// invalidate everything, the system prompt the system and the messages, tool_choice the messages).
// So the request for the summary travels in the new user message, after the previous request's
// breakpoint; calls the model makes anyway are refused (reject-call.ts, `finish_already_verified`)
// and the request repeated, a bounded number of times (stop-reason-handler.ts).
import { toolInputSchemas } from '../domain/tool-input-schemas.js';
import { isToolUse, type TranscriptMessage } from '../domain/model-message.js';

/** The text block that ends the user message of every turn after the finish gate passed. */
export const SUMMARY_REQUEST =
  'The finish gate passed: the site is built, deployed, verified and published. ' +
  'Now write your final summary for the user as plain text. Do not call any tool: no tool runs any more.';

/** The note a turn's tool results are followed by: after the gate, the summary request (it
 * replaces a note written for the build, such as "continue where you left off"); before it, the
 * note the previous turn decided. */
export function noteForToolResults({ finishVerified, note }: { finishVerified: boolean; note: string | null }): string | null {
  return finishVerified ? SUMMARY_REQUEST : note;
}

/** The `summary` of the finish_turn call that passed the gate (the last finish_turn whose result
 * is not an error), or null when the transcript holds none. It is the run's result when the model
 * keeps calling tools instead of writing a summary. */
export function verifiedFinishSummary(messages: readonly TranscriptMessage[]): string | null {
  const summaries = new Map<string, string>();
  let found: string | null = null;
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    if (message.role === 'assistant') {
      for (const block of message.content) {
        if (!isToolUse(block) || block.name !== 'finish_turn') continue;
        const input = toolInputSchemas.finish_turn.safeParse(block.input);
        if (input.success) summaries.set(block.id, input.data.summary);
      }
      continue;
    }
    for (const block of message.content) {
      if (block.type !== 'tool_result' || block.is_error) continue;
      found = summaries.get(block.tool_use_id) ?? found;
    }
  }
  return found;
}
