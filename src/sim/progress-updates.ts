// Text the model writes between tool calls comes back inside thinking blocks on the models that
// write progress updates (docs build-with-claude/thinking#progress-updates: "an ordinary `type:
// "thinking"` block with its own `signature`" that "sits immediately before the `tool_use` … block it
// introduces"; "At most one progress update precedes each tool call"; model-catalog.ts
// `progressUpdates`). On Sonnet 5.5 only "notes longer than a sentence or two … come back as
// progress-update `thinking` blocks … Shorter remarks stay `text`" (models/sonnet-5-5/migration-
// guide#text-between-tool-calls): here a note is long when it has more than two sentences. Text with
// no tool call after it (a final answer) stays text. Its text is shown under display `updates` and
// `summarized` and with `between_tools` ("as it would under `display: "updates"`"), empty under
// `omitted`. It is still output: usage counts it (wire-block.ts `hiddenCharacters`).
import type { MessagesRequest } from './messages-request.js';
import type { ResponseBlock, ResponsePlan } from './response-plan.js';

/** A note longer than this many sentences is a progress update on a `long_notes` model. */
const SHORT_REMARK_SENTENCES = 2;

function sentenceCount(text: string): number {
  return text.split(/(?<=[.!?])\s+/).filter((sentence) => sentence.trim() !== '').length;
}

/** The plan with each note before a tool call turned into a progress-update thinking block, where the model does so. */
export function applyProgressUpdates({ plan, request }: { plan: ResponsePlan; request: Pick<MessagesRequest, 'modelDescription' | 'thinking'> }): ResponsePlan {
  const { progressUpdates } = request.modelDescription;
  const { thinking } = request;
  if (progressUpdates === 'none' || thinking.type === 'disabled') return plan;
  const textShown = thinking.type === 'between_tools' || thinking.display !== 'omitted';
  const blocks = plan.blocks.map((block, index): ResponseBlock => {
    if (block.type !== 'text' || plan.blocks[index + 1]?.type !== 'tool_use') return block;
    if (progressUpdates === 'long_notes' && sentenceCount(block.text) <= SHORT_REMARK_SENTENCES) return block;
    return { type: 'thinking', thinking: block.text, textShown };
  });
  return { ...plan, blocks };
}
