// The reasoning a thinking model writes before its answer: derived from the turn it is about to
// give (the calls it makes, the text it says) and the transcript, so it is deterministic. Small
// for the instant profile; several paragraphs (hundreds of tokens) for realistic sizes. Never more
// than the request's budget_tokens (docs build-with-claude/extended-thinking: "budget_tokens …
// determines how many tokens Claude can use for its internal reasoning process"). Effort scales it
// (docs build-with-claude/effort: lower effort thinks less, higher effort more): at `low` only the
// intent, at `medium` the brief and the intent, at `high` (the default of most models, and what
// manual thinking gets) the last outcome too, and `xhigh` / `max` go through the steps once or twice;
// a realistic site's share of the budget scales the same way.
import type { EffortLevel } from './model-catalog.js';
import type { ResponseBlock } from './response-plan.js';
import type { SiteSize } from './site-plan.js';
import type { TranscriptFacts } from './transcript-facts.js';

const CHARACTERS_PER_TOKEN = 4;
/** Realistic thinking uses at most this share of the budget, leaving room for the answer. */
const REALISTIC_BUDGET_SHARE = 0.5;
const REALISTIC_THINKING_TOKENS = 700;
/** Realistic thinking length relative to `high`. */
const EFFORT_SCALE: Readonly<Record<EffortLevel, number>> = { low: 0.25, medium: 0.5, high: 1, xhigh: 1.5, max: 2 };
/** Passes over the answer's steps an instant-size thought makes. */
const EFFORT_DETAIL_ROUNDS: Readonly<Record<EffortLevel, number>> = { low: 0, medium: 0, high: 0, xhigh: 1, max: 2 };

function describeCall(block: Extract<ResponseBlock, { type: 'tool_use' }>): string {
  const path = typeof block.input.path === 'string' ? ` for ${block.input.path}` : '';
  return `${block.name}${path}`;
}

function lastOutcome(facts: TranscriptFacts): string {
  const last = facts.calls[facts.calls.length - 1];
  if (!last) return 'Nothing has been called yet, so this is the start of the build.';
  return (
    `The last call was ${last.name}, and it ` +
    `${last.outcome === 'error' ? 'failed, so I should look at the error before moving on' : last.outcome === 'success' ? 'succeeded' : 'is still pending'}.`
  );
}

function detailParagraph(block: ResponseBlock, index: number): string {
  switch (block.type) {
    case 'tool_use': {
      const keys = Object.keys(block.input);
      const shape = keys.length > 0 ? `It takes ${keys.join(', ')}.` : 'It takes no input.';
      const size = JSON.stringify(block.input).length;
      return (
        `Step ${index + 1}: ${describeCall(block)}. ${shape} The input is about ${Math.ceil(size / CHARACTERS_PER_TOKEN)} tokens. ` +
        'I should check that it matches the schema, that paths stay inside the workspace, and that it moves the plan forward ' +
        'instead of repeating work that already succeeded. If it fails, I will read the error and retry once before giving up on an optional step.'
      );
    }
    case 'text':
      return `Step ${index + 1}: say "${block.text.slice(0, 80)}" so the user can follow along; keep it short and factual.`;
    default:
      return `Step ${index + 1}: continue.`;
  }
}

/** The thinking text for an answer made of `blocks`, at most `budgetTokens` long. */
export function composeThinking({
  blocks,
  facts,
  budgetTokens,
  size,
  effort = 'high',
}: {
  blocks: readonly ResponseBlock[];
  facts: TranscriptFacts;
  budgetTokens: number;
  size: SiteSize;
  /** The request's effort (parse-effort.ts); `high` when the model takes none. */
  effort?: EffortLevel;
}): string {
  const calls = blocks.flatMap((block) => (block.type === 'tool_use' ? [describeCall(block)] : []));
  const brief = facts.brief.replace(/\s+/g, ' ').trim().slice(0, 120);
  const intent =
    calls.length > 0
      ? `Next I will call ${calls.join(', ')}.`
      : blocks.length > 0
        ? 'No tool call is needed now; I will answer in text.'
        : 'There is nothing more to say.';
  const situation = effort === 'medium' ? `The brief: "${brief}".` : `The brief: "${brief}". ${facts.calls.length} tool calls so far. ${lastOutcome(facts)}`;
  const paragraphs = effort === 'low' ? [intent] : [situation, intent];
  const details = blocks.filter((block) => block.type === 'tool_use' || block.type === 'text');
  let limit = budgetTokens * CHARACTERS_PER_TOKEN;
  if (size !== 'realistic') {
    for (let round = 0; round < EFFORT_DETAIL_ROUNDS[effort]; round += 1) details.forEach((block, index) => paragraphs.push(detailParagraph(block, index)));
  } else {
    const realisticTokens = Math.floor(REALISTIC_THINKING_TOKENS * EFFORT_SCALE[effort]);
    limit = Math.min(limit, Math.floor(budgetTokens * REALISTIC_BUDGET_SHARE) * CHARACTERS_PER_TOKEN, realisticTokens * CHARACTERS_PER_TOKEN);
    for (let round = 0; paragraphs.join('\n\n').length < limit && round < 8; round += 1) {
      details.forEach((block, index) => paragraphs.push(detailParagraph(block, index)));
      paragraphs.push('Let me double-check the order: the plan first, then styles, files, deploy, verification, publishing, and only then finish_turn.');
    }
  }
  const text = paragraphs.join('\n\n');
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit);
  const sentenceEnd = cut.lastIndexOf('. ');
  return sentenceEnd > 0 ? cut.slice(0, sentenceEnd + 1) : cut;
}
