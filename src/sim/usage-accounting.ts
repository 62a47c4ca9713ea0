// The `usage` object of an answer, in the real API's shape (SDK `Usage`,
// src/resources/messages/messages.ts): prompt tokens split by the prompt cache (prompt-cache.ts)
// plus the output tokens. Every answer — JSON or streamed — builds its usage here, so the parts
// always add up the same way.
import type { PromptUsage } from './prompt-cache.js';

export interface AnswerUsage extends PromptUsage {
  output_tokens: number;
  service_tier: 'standard';
}

/** The usage of one answer. */
export function createUsage({ prompt, outputTokens }: { prompt: PromptUsage; outputTokens: number }): AnswerUsage {
  return {
    input_tokens: prompt.input_tokens,
    cache_creation_input_tokens: prompt.cache_creation_input_tokens,
    cache_read_input_tokens: prompt.cache_read_input_tokens,
    cache_creation: { ...prompt.cache_creation },
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}
