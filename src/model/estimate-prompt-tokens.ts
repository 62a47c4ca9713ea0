// How many tokens a request's prompt will count, estimated before it is sent: the run's budgets
// (domain/run-budget.ts, domain/usage-cost.ts), the admission limiter's reservation
// (model-rate-limiter.ts) and the context-window cap (cap-max-tokens-to-context-window.ts) all
// take this number. Without a tokenizer the fleet counts characters / 4 of the serialized system,
// tools and messages in the model's tokenizer generation (domain/estimate-text-tokens.ts: the
// newer tokenizer of Opus 4.7 and later makes ~30% more tokens from the same text), and adds a
// margin: real tokenizers give fewer characters per token on code and markup than on prose, and
// the API wraps tools and messages in a few tokens of its own (docs build-with-claude/token-counting:
// "the token count should be considered an estimate"). Overestimating only lowers max_tokens or
// stops a run a call early; underestimating lets a budget be crossed or gets a 400 on the models
// that hold prompt + max_tokens to the window. A ratio measured with count_tokens
// (token-calibration.ts) raises the estimate when the model counts this fleet's prompts denser.
import { estimateTextTokens, type Tokenizer } from '../domain/estimate-text-tokens.js';

/** The estimate is this much above characters / 4 in the model's tokenizer … */
export const PROMPT_ESTIMATE_RATIO = 1.15;
/** … plus this many tokens for what the API adds around the prompt. */
export const PROMPT_ESTIMATE_OVERHEAD_TOKENS = 512;

/** Serialized size of a tools array: the arrays of the tiers are shared and frozen
 * (tools/tool-definitions.ts), so each is measured once, not every turn. */
const toolsCharacters = new WeakMap<object, number>();

export interface PromptParts {
  system: unknown;
  tools: unknown;
  messages: unknown;
  /** The length of JSON.stringify(messages), when the caller knows it (the run engine keeps the
   * length of each stored message): saves serializing the whole transcript again only to measure it. */
  messagesCharacters?: number;
}

/** The length of JSON.stringify({ system, tools, messages }), its 32 characters of keys and
 * punctuation included, without building it: what the estimate and its calibration measure. */
export function promptCharacters({ system, tools, messages, messagesCharacters }: PromptParts): number {
  let toolChars = typeof tools === 'object' && tools !== null ? toolsCharacters.get(tools) : undefined;
  if (toolChars === undefined) {
    toolChars = JSON.stringify(tools).length;
    if (typeof tools === 'object' && tools !== null) toolsCharacters.set(tools, toolChars);
  }
  return JSON.stringify(system).length + toolChars + (messagesCharacters ?? JSON.stringify(messages).length) + 32;
}

/** Estimated input tokens of a call with this system prompt, tool definitions and messages, on a
 * model with `tokenizer` (lookupModelCapabilities(…).capabilities.tokenizer); `measuredRatio` is
 * the calibration's (token-calibration.ts), used when above the documented ratio with its margin. */
export function estimatePromptTokens({
  tokenizer,
  measuredRatio = null,
  ...parts
}: PromptParts & { tokenizer: Tokenizer; measuredRatio?: number | null }): number {
  return estimateTextTokens({ characters: promptCharacters(parts), tokenizer, margin: PROMPT_ESTIMATE_RATIO, measuredRatio }) + PROMPT_ESTIMATE_OVERHEAD_TOKENS;
}
