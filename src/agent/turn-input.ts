// Builds the user message a turn sends, from what the previous turn decided it needs.
import type { StoredToolResult } from '../engine/index.js';
import type { ToolResultBlock, UserBlock, UserMessage } from '../domain/model-message.js';
import { wrapToolError } from '../domain/tool-result-envelope.js';
import type { ToolErrorCode } from '../domain/tool-error-codes.js';
import { TOOL_JOB_ATTEMPTS } from '../jobs/fleet-queues.js';

/** The code of a call without a ledger entry: its tool job failed for good, and BullMQ let the
 * turn run without it (ignoreDependencyOnFailure, src/jobs/fleet-queues.ts). The run goes on — a
 * tool failure is data — and its turn and budget limits bound what the model does next. */
export const MISSING_RESULT_CODE = 'job_attempts_exhausted' satisfies ToolErrorCode;
export const MISSING_RESULT_TEXT =
  `The tool gave no result: its job failed after ${TOOL_JOB_ATTEMPTS} attempts (the tool ` +
  `worker or its infrastructure failed, not the tool's answer). Treat the call as failed.`;
/** What the model reads for a call without a ledger entry: an error result in the same envelope
 * as every other result (the turn does not know the call's tool, so the envelope names none). */
export const MISSING_RESULT_CONTENT = wrapToolError({ toolName: null, label: MISSING_RESULT_CODE, message: MISSING_RESULT_TEXT });

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
      content: stored ? stored.content : MISSING_RESULT_CONTENT,
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
