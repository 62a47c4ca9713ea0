// Admission of a model request, the same for /v1/messages and /v1/chat/completions: what the prompt
// cache would read and write decides the input tokens that count toward the input-tokens-per-minute
// limit (rate-limiter.ts). Cache writes always count; cache reads only on the older models that
// count them (model-catalog.ts, cacheReadsCountTowardInputLimit). Nothing is cached by a refused
// request: the caller commits the cache plan once the answer goes out.
import type { MessagesRequest } from './messages-request.js';
import type { PromptCache, PromptCachePlan } from './prompt-cache.js';
import type { RateLimitDecision, RateLimiter } from './rate-limiter.js';

export function admitRequest({
  request,
  apiKey,
  promptCache,
  rateLimiter,
}: {
  request: MessagesRequest;
  apiKey: string;
  promptCache: PromptCache;
  rateLimiter: RateLimiter;
}): { cachePlan: PromptCachePlan; admission: RateLimitDecision } {
  const { modelDescription } = request;
  const cachePlan = promptCache.plan({ apiKey, model: modelDescription, blocks: request.promptBlocks });
  const promptUsage = cachePlan.usage;
  const admission = rateLimiter.admit({
    apiKey,
    rateLimitClass: modelDescription.rateLimitClass,
    model: modelDescription.id,
    inputTokens:
      promptUsage.input_tokens +
      promptUsage.cache_creation_input_tokens +
      (modelDescription.cacheReadsCountTowardInputLimit ? promptUsage.cache_read_input_tokens : 0),
    maxOutputTokens: request.maxTokens,
  });
  return { cachePlan, admission };
}
