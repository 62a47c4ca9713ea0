// How many tokens a text makes, estimated from its length before the model has counted it: the
// one home of the characters-per-token rule and of each tokenizer generation's ratio, so budgets,
// admission reservations, the context-window cap and progress estimates all agree.
// - characters / 4: the docs' rule of thumb for English and code on the classic tokenizer.
// - ×1.3 on the newer tokenizer (docs build-with-claude/token-counting: "Claude Opus 4.7 and later
//   Opus models, Claude Fable 5, Claude Mythos 5, Claude Mythos Preview, and Claude Sonnet 5 use a
//   newer tokenizer. The same input text produces approximately 30 percent more tokens"; Sonnet 5.5
//   and Haiku 5.5 share it, their whats-new pages). Which model uses which is the catalog's
//   `tokenizer` (model-catalog.ts), never a test of the model's name.
// A ratio measured with count_tokens (src/model/token-calibration.ts) may raise the estimate, never
// lower it below the documented ratio: one odd measurement must not make a budget undercount.

/** A model's tokenizer generation (model-catalog.ts `tokenizer`). */
export type Tokenizer = 'classic' | 'newer';

/** Characters per token of the classic tokenizer, the docs' rule of thumb. */
export const CHARACTERS_PER_CLASSIC_TOKEN = 4;

/** Tokens each generation makes for what the classic tokenizer counts as one. */
export const TOKENIZER_RATIOS: Readonly<Record<Tokenizer, number>> = Object.freeze({ classic: 1, newer: 1.3 });

/** The ratio an estimate uses: the documented one times `margin`, or a measured one when higher. */
export function estimateRatio({
  tokenizer,
  margin = 1,
  measuredRatio = null,
}: {
  tokenizer: Tokenizer;
  margin?: number;
  measuredRatio?: number | null;
}): number {
  return Math.max(TOKENIZER_RATIOS[tokenizer] * margin, measuredRatio !== null && Number.isFinite(measuredRatio) ? measuredRatio : 0);
}

/** Estimated tokens of `characters` characters on a model with `tokenizer` (0 for none). `margin`
 * multiplies the documented ratio; `measuredRatio` (measuredTokenRatio) replaces it when higher. */
export function estimateTextTokens({
  characters,
  tokenizer,
  margin = 1,
  measuredRatio = null,
}: {
  characters: number;
  tokenizer: Tokenizer;
  margin?: number;
  measuredRatio?: number | null;
}): number {
  // Rounded to a whole thousandth first: 4 × 1.3 is not exact in binary, and 520 characters must
  // be 130 tokens on the newer tokenizer, not 131.
  return Math.ceil(Math.round((characters / CHARACTERS_PER_CLASSIC_TOKEN) * estimateRatio({ tokenizer, margin, measuredRatio }) * 1000) / 1000);
}

/** The ratio of tokens a model counted to characters / 4 of the same text: what estimateTextTokens
 * takes as `measuredRatio`. Null when nothing was measured (no characters or no count). */
export function measuredTokenRatio({ countedTokens, characters }: { countedTokens: number; characters: number }): number | null {
  if (!(characters > 0) || !(countedTokens > 0) || !Number.isFinite(countedTokens)) return null;
  return countedTokens / (characters / CHARACTERS_PER_CLASSIC_TOKEN);
}
