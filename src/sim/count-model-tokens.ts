// Tokens as a given model counts them. The simulator's estimate is characters / 4
// (token-estimate.ts) on the older tokenizer; models on the newer one count about 30% more for the
// same text (docs build-with-claude/token-counting: "Claude Opus 4.7 and later Opus models, Claude
// Fable 5, Claude Mythos 5, Claude Mythos Preview, and Claude Sonnet 5 use a newer tokenizer. The
// same input text produces approximately 30 percent more tokens"; the ratio is model-catalog.ts
// `tokenizerRatio`). Input, output, the context-window check and the prompt-cache thresholds all
// count through here, so a prompt costs the same number of tokens wherever it is measured.
import { tokenizerRatio, type ModelDescription } from './model-catalog.js';

const CHARACTERS_PER_CLASSIC_TOKEN = 4;

type Tokenizer = Pick<ModelDescription, 'tokenizer'>;

/** Tokens `characters` characters cost on `model` (0 for none; callers floor a whole prompt at 1). */
export function countModelTokens({ characters, model }: { characters: number; model: Tokenizer }): number {
  // Rounded to a whole thousandth first: 4 × 1.3 is not exact in binary, and 520 characters must be 130 tokens, not 131.
  return Math.ceil(Math.round((characters / CHARACTERS_PER_CLASSIC_TOKEN) * tokenizerRatio(model) * 1000) / 1000);
}

/** The characters `tokens` tokens hold on `model`: what a max_tokens budget lets the model write. */
export function charactersForTokens({ tokens, model }: { tokens: number; model: Tokenizer }): number {
  return Math.floor(Math.round(((tokens * CHARACTERS_PER_CLASSIC_TOKEN) / tokenizerRatio(model)) * 1000) / 1000);
}
