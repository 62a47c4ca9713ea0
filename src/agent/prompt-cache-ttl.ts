// The lifetime of a turn's prompt-cache breakpoints. Five minutes, refreshed by every read, keeps
// a working run's prefix alive: its turns follow each other within seconds. A run parked on
// ask_user waits for a person, often longer, and its next request repeats the asking request's
// whole prompt — so with BUILDFLEET_PROMPT_CACHE_TTL_WAITING=1h the requests that may end in such
// a wait (every request that offers ask_user) write one-hour entries, and the answered run reads
// its transcript back instead of writing it again. Which request will ask is known only from its
// answer, hence every such request. The price: "1-hour cache write tokens are 2 times the base
// input tokens price" against 1.25 for five minutes (docs build-with-claude/prompt-caching,
// "Pricing"), paid on each request's new tokens only; reads cost 0.1 either way.
import type { PromptCacheTtl } from '../model/place-cache-breakpoints.js';

/** The breakpoints' lifetime for a turn offering these tools. */
export function choosePromptCacheTtl({ offeredTools, waitingTtl }: { offeredTools: readonly string[]; waitingTtl: PromptCacheTtl }): PromptCacheTtl {
  return offeredTools.includes('ask_user') ? waitingTtl : '5m';
}
