// How many tokens a request's prompt will count, estimated before it is sent so max_tokens can be
// kept inside the context window (cap-max-tokens-to-context-window.ts). Without a tokenizer the
// fleet counts characters / 4 of the serialized system, tools and messages, and adds a margin:
// real tokenizers give fewer characters per token on code and markup than on prose, and the API
// wraps tools and messages in a few tokens of its own (docs build-with-claude/token-counting: "the
// token count should be considered an estimate"). Overestimating only lowers max_tokens a little;
// underestimating gets a 400 on the models that hold prompt + max_tokens to the window.

/** The estimate is this much above characters / 4 … */
export const PROMPT_ESTIMATE_RATIO = 1.15;
/** … plus this many tokens for what the API adds around the prompt. */
export const PROMPT_ESTIMATE_OVERHEAD_TOKENS = 512;

/** Serialized size of a tools array: the arrays of the tiers are shared and frozen
 * (tools/tool-definitions.ts), so each is measured once, not every turn. */
const toolsCharacters = new WeakMap<object, number>();

/** Estimated input tokens of a call with this system prompt, tool definitions and messages.
 * `messagesCharacters` — the length of JSON.stringify(messages) — when the caller knows it (the
 * run engine keeps the length of each stored message), saves serializing the whole transcript
 * again only to measure it. */
export function estimatePromptTokens({
  system,
  tools,
  messages,
  messagesCharacters,
}: {
  system: unknown;
  tools: unknown;
  messages: unknown;
  messagesCharacters?: number;
}): number {
  let toolChars = typeof tools === 'object' && tools !== null ? toolsCharacters.get(tools) : undefined;
  if (toolChars === undefined) {
    toolChars = JSON.stringify(tools).length;
    if (typeof tools === 'object' && tools !== null) toolsCharacters.set(tools, toolChars);
  }
  // The length of JSON.stringify({ system, tools, messages }), its 32 characters of keys and
  // punctuation included, without building it.
  const characters = JSON.stringify(system).length + toolChars + (messagesCharacters ?? JSON.stringify(messages).length) + 32;
  return Math.ceil((characters / 4) * PROMPT_ESTIMATE_RATIO) + PROMPT_ESTIMATE_OVERHEAD_TOKENS;
}
