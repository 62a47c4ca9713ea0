// Real max_tokens truncation: the model stops where its output budget runs out, wherever that is.
// Inside text the text is cut; inside a tool_use the JSON is cut (a stream's input_json_delta stops
// mid-JSON and the block ends; a non-streaming answer carries whatever of the input parses). Docs:
// "If Claude's response is cut off due to hitting the max_tokens limit, and the truncated response
// contains an incomplete tool use block, you'll need to retry the request with a higher max_tokens
// value" (agents-and-tools/tool-use/implement-tool-use, handling-stop-reasons). Thinking counts
// against max_tokens too (build-with-claude/extended-thinking, "max_tokens … includes your thinking
// budget"). The output token count is then exactly max_tokens. A thinking block cut off carries an
// empty signature: the real stream ends inside the block, before the `signature_delta` that comes
// last in a thinking block (docs build-with-claude/streaming, "Thinking delta": "a special
// signature_delta event is sent just before the content_block_stop event"), so the SDK's
// MessageStream keeps the '' from content_block_start (it sets `signature` only on signature_delta).
// Output is counted in the model's own tokens (count-model-tokens.ts): on the newer tokenizer the
// same budget holds about 30% fewer characters.
import { charactersForTokens, countModelTokens } from './count-model-tokens.js';
import type { ModelDescription } from './model-catalog.js';
import { outputCharactersOf, type WireBlock } from './wire-block.js';

export interface CutResult {
  blocks: WireBlock[];
  truncated: boolean;
  /** usage.output_tokens: max_tokens when truncated, the estimate of everything otherwise. */
  outputTokens: number;
}

/** Cuts `blocks` at `maxTokens` of output. */
export function cutAtMaxTokens({
  blocks,
  maxTokens,
  model,
}: {
  blocks: readonly WireBlock[];
  maxTokens: number;
  /** Whose tokenizer counts the output. */
  model: Pick<ModelDescription, 'tokenizer'>;
}): CutResult {
  const total = blocks.reduce((sum, block) => sum + outputCharactersOf(block), 0);
  const budget = charactersForTokens({ tokens: maxTokens, model });
  const outputTokens = Math.min(maxTokens, Math.max(1, countModelTokens({ characters: total, model })));
  if (total <= budget) return { blocks: [...blocks], truncated: false, outputTokens };

  const kept: WireBlock[] = [];
  let remaining = budget;
  for (const block of blocks) {
    const cost = outputCharactersOf(block);
    if (cost <= remaining) {
      kept.push(block);
      remaining -= cost;
      continue;
    }
    if (remaining > 0) {
      const cut = cutBlock(block, remaining);
      if (cut) kept.push(cut);
    }
    break;
  }
  return { blocks: kept, truncated: true, outputTokens: maxTokens };
}

function cutBlock(block: WireBlock, characters: number): WireBlock | null {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text.slice(0, characters) };
    case 'thinking':
      // Unsigned: the signature would have come after the last thinking_delta.
      return block.hiddenCharacters > 0
        ? { type: 'thinking', thinking: '', signature: '', hiddenCharacters: characters }
        : { type: 'thinking', thinking: block.thinking.slice(0, characters), signature: '', hiddenCharacters: 0 };
    case 'redacted_thinking':
      // Opaque data cannot be half-sent; the budget ended inside the hidden reasoning.
      return null;
    case 'tool_use':
      return { ...block, inputJson: block.inputJson.slice(0, characters), complete: false };
    default:
      return null;
  }
}
