// Builds the user message a turn sends, from what the previous turn decided it needs.
import type { StoredToolResult } from '../engine/run-engine.js';
import type { ToolResultBlock, UserBlock, UserMessage } from '../domain/model-message.js';

export const MISSING_RESULT_TEXT =
  'The tool did not return a result (the tool worker failed repeatedly). Treat the call as failed.';

/** Every tool_use id gets exactly one tool_result, echoed verbatim, in the order the model
 * called them; a missing ledger entry becomes an is_error result so no tool_use stays open. */
export function buildToolResultsMessage(
  results: ReadonlyMap<string, StoredToolResult | null>,
  toolUseIds: string[],
  note: string | null,
): { message: UserMessage; missing: string[] } {
  const missing: string[] = [];
  const blocks: UserBlock[] = [];
  for (const toolUseId of toolUseIds) {
    const stored = results.get(toolUseId) ?? null;
    if (!stored) missing.push(toolUseId);
    const block: ToolResultBlock = {
      type: 'tool_result',
      tool_use_id: toolUseId,
      content: stored ? stored.content : MISSING_RESULT_TEXT,
    };
    if (!stored || stored.is_error) block.is_error = true;
    blocks.push(block);
  }
  if (note) blocks.push({ type: 'text', text: note });
  return { message: { role: 'user', content: blocks }, missing };
}

export function textMessage(text: string): UserMessage {
  return { role: 'user', content: [{ type: 'text', text }] };
}

