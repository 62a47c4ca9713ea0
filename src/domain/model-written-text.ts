// "What the model wrote" in one answer, in one home: its text blocks, plus — on a run whose
// thinking display makes them readable — its progress updates, the short notes models with
// progress updates (Sonnet 5.5, Opus 5.5, Fable / Mythos 5.1+) write between tool calls and return
// as `thinking` blocks (docs build-with-claude/thinking#progress-updates). Under `display:
// 'updates'` reasoning blocks come back empty, so "any thinking block with non-empty text is a
// progress update"; under Sonnet 5.5's `between_tools` there is no up-front reasoning at all and
// the updates carry text "as under display: updates". Under `summarized` a non-empty block may be
// reasoning and is not counted; under `omitted` every block is empty.
//
// Every reader of an answer's words for people or decisions asks this: the run's result, the
// refusal message, the turns' `text` (console, `buildfleet logs`), and the seeds' JSON-as-text
// detection and text tool-call recovery. Those last two read `answer` only — the text blocks: a
// progress update always precedes a real tool_use in the same answer, so a call it describes is
// the one that follows natively, and recovering it would make the same call twice.
import { isText, type AssistantBlock } from './model-message.js';
import type { ThinkingDisplay } from './model-catalog.js';
import type { RunThinkingMode } from './resolve-run-model-settings.js';

/** Whether a run's non-empty thinking blocks are progress updates (readable text between tool calls). */
export function readsProgressUpdates(run: { thinking: RunThinkingMode; thinkingDisplay: ThinkingDisplay | null }): boolean {
  return run.thinking === 'between_tools' || run.thinkingDisplay === 'updates';
}

export interface ModelWrittenText {
  /** Text blocks and progress updates in answer order, joined by blank lines, trimmed. */
  written: string;
  /** The text blocks alone, joined the same way: what a call written as text is looked for in. */
  answer: string;
  /** The progress updates' text, in order. */
  progressUpdates: string[];
}

/** What the model wrote in `content`; `progressUpdates` says whether the run's non-empty thinking
 * blocks are progress updates (readsProgressUpdates). */
export function modelWrittenText({ content, progressUpdates }: { content: readonly AssistantBlock[]; progressUpdates: boolean }): ModelWrittenText {
  const written: string[] = [];
  const answer: string[] = [];
  const updates: string[] = [];
  for (const block of content) {
    if (isText(block) && typeof block.text === 'string') {
      written.push(block.text);
      answer.push(block.text);
    } else if (progressUpdates && block.type === 'thinking' && typeof block.thinking === 'string' && block.thinking.trim() !== '') {
      written.push(block.thinking);
      updates.push(block.thinking);
    }
  }
  const join = (parts: string[]) =>
    parts
      .filter((part) => part.trim() !== '')
      .join('\n\n')
      .trim();
  return { written: join(written), answer: join(answer), progressUpdates: updates };
}
