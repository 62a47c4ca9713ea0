// `POST /v1/messages/count_tokens` (docs build-with-claude/token-counting; SDK
// messages.countTokens → MessageTokensCount `{input_tokens}`): the same body as a Messages request
// without `max_tokens`, refused by the same validation (model, roles, tools, thinking, forced
// tool_choice, signed thinking blocks: "The same validation applies to the token counting
// endpoint"), answered with the prompt's tokens in the model's own tokenizer — exactly what a
// Messages call with that body reports as input_tokens + cache_creation_input_tokens +
// cache_read_input_tokens. It reads and writes no prompt cache and spends no rate-limit tokens
// (the docs count it against requests per minute only, in its own bucket, which the simulator does
// not model).
import { parseMessagesRequest } from './parse-messages-request.js';
import type { ThinkingSigner } from './thinking-signature.js';
import { verifyThinkingBlocks } from './verify-thinking-blocks.js';

export const COUNT_TOKENS_PATH = '/v1/messages/count_tokens';

export type CountTokensAnswer = { status: 200; body: { input_tokens: number } } | { status: 400 | 404; message: string };

/** The count for a parsed JSON body, or the refusal a Messages request with it would get. */
export function answerCountTokens({
  body,
  acceptsBetaFields,
  betas,
  signer,
}: {
  body: unknown;
  /** The request carried an `anthropic-beta` header (parse-messages-request.ts). */
  acceptsBetaFields: boolean;
  betas: readonly string[];
  signer: ThinkingSigner;
}): CountTokensAnswer {
  // The signer screens the thinking blocks sent back as a Messages request's are (screen-thinking-blocks.ts).
  const parsed = parseMessagesRequest({ body, acceptsBetaFields, betas, countingTokens: true, signer });
  if (!parsed.ok) return { status: parsed.status, message: parsed.message };
  const thinkingProblem = verifyThinkingBlocks({ request: parsed.request });
  if (thinkingProblem) return { status: 400, message: thinkingProblem };
  return { status: 200, body: { input_tokens: parsed.request.promptTokens } };
}
