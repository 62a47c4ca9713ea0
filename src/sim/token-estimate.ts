// Token counts are estimated as characters / 4: deterministic and close enough to real
// tokenizers for cost and context-budget code to behave plausibly.

/** Estimated tokens for a piece of text; at least 1, as the real API never reports 0 output tokens. */
export function estimateTokens({ text }: { text: string }): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
