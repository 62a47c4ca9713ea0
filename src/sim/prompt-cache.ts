// The simulated prompt cache (docs build-with-claude/prompt-caching, "How prompt caching works"):
// - an entry is the prompt prefix up to a breakpoint, keyed by (API key, model, hash of every
//   block before it: tools → system → messages); "cache hits require 100% identical prompt
//   segments", so a changed tool list misses everything after it;
// - hits are looked for at each breakpoint and, failing that, at earlier block boundaries, up to
//   20 blocks back ("the system automatically checks for cache hits at all previous content block
//   boundaries (up to approximately 20 blocks before your explicit breakpoint)");
// - the longest hit is read; every breakpoint after it writes an entry; entries live 5 minutes or
//   1 hour and "the cache is refreshed for no additional cost each time the cached content is used";
// - a breakpoint whose prefix is shorter than the model's minimum cacheable length is not cached
//   ("Shorter prompts cannot be cached, even if marked with cache_control", no error);
// - usage: `cache_read_input_tokens` = the hit prefix, `cache_creation_input_tokens` = from there to
//   the last breakpoint (split into `cache_creation.ephemeral_1h_input_tokens` and `…_5m_…`, 1h
//   breakpoints coming first), `input_tokens` = the rest, after the last breakpoint; the three sum
//   to the whole prompt ("total_input_tokens = cache_read_input_tokens +
//   cache_creation_input_tokens + input_tokens").
// Tokens are the simulator's estimate in the model's own tokens (count-model-tokens.ts: characters /
// 4, times 1.3 on the newer tokenizer) over the blocks' canonical text, counted cumulatively so the
// parts always add up to the whole; the minimum cacheable length is measured in those same tokens
// (model-catalog.ts `minimumCacheableTokens`, docs "Cache limitations").
import { createHash } from 'node:crypto';
import { CACHE_TTL_MS, type CacheTtl, type PromptBlock } from './cache-breakpoints.js';
import type { ModelDescription } from './model-catalog.js';
import { countModelTokens } from './count-model-tokens.js';

/** How far back from a breakpoint hits are looked for, in blocks. */
export const CACHE_LOOKBACK_BLOCKS = 20;
const MAX_ENTRIES = 50_000;

export interface PromptUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

export interface PromptCachePlan {
  usage: PromptUsage;
  /** Reads refresh and writes store their entries; called once the answer is going out. */
  commit(): void;
}

interface CacheEntry {
  ttlMs: number;
  expiresAtMs: number;
}

/** One simulator's prompt cache. */
export class PromptCache {
  readonly #entries = new Map<string, CacheEntry>();
  readonly #clock: () => number;

  constructor({ clock = Date.now }: { clock?: () => number } = {}) {
    this.#clock = clock;
  }

  /** Drops every entry; returns how many there were. */
  clear(): number {
    const size = this.#entries.size;
    this.#entries.clear();
    return size;
  }

  /** Live entries. */
  get size(): number {
    return this.#entries.size;
  }

  /** What a request reads and writes; nothing changes until `commit()`. */
  plan({ apiKey, model, blocks }: { apiKey: string; model: ModelDescription; blocks: readonly PromptBlock[] }): PromptCachePlan {
    const now = this.#clock();
    const cumulativeCharacters: number[] = [];
    const keys: string[] = [];
    let characters = 0;
    let chain = createHash('sha256').update(`${apiKey}\u0000${model.id}`).digest('hex');
    for (const block of blocks) {
      characters += block.text.length;
      cumulativeCharacters.push(characters);
      chain = createHash('sha256').update(chain).update('\u0000').update(block.keyText).digest('hex');
      keys.push(chain);
    }
    const tokensFor = (count: number) => countModelTokens({ characters: count, model });
    const tokensThrough = (index: number) => (index < 0 ? 0 : tokensFor(cumulativeCharacters[index] ?? 0));
    const totalTokens = Math.max(1, tokensFor(characters));

    const breakpoints = blocks.flatMap((block, index) =>
      block.cacheTtl !== null && tokensThrough(index) >= model.minimumCacheableTokens ? [{ index, ttl: block.cacheTtl }] : [],
    );

    let readIndex = -1;
    for (const breakpoint of breakpoints) {
      const earliest = Math.max(0, breakpoint.index - CACHE_LOOKBACK_BLOCKS + 1);
      for (let index = breakpoint.index; index >= earliest; index -= 1) {
        if (index <= readIndex) break;
        if (this.#live(keys[index] ?? '', now)) {
          readIndex = index;
          break;
        }
      }
    }

    const writes = breakpoints.filter((breakpoint) => breakpoint.index > readIndex);
    const readTokens = tokensThrough(readIndex);
    const lastOneHour = writes.filter((write) => write.ttl === '1h').at(-1);
    const lastFiveMinutes = writes.filter((write) => write.ttl === '5m').at(-1);
    const oneHourTokens = lastOneHour ? tokensThrough(lastOneHour.index) - readTokens : 0;
    const fiveMinuteTokens = lastFiveMinutes ? tokensThrough(lastFiveMinutes.index) - readTokens - oneHourTokens : 0;
    const creationTokens = oneHourTokens + fiveMinuteTokens;

    const usage: PromptUsage = {
      input_tokens: totalTokens - readTokens - creationTokens,
      cache_creation_input_tokens: creationTokens,
      cache_read_input_tokens: readTokens,
      cache_creation: { ephemeral_5m_input_tokens: fiveMinuteTokens, ephemeral_1h_input_tokens: oneHourTokens },
    };
    const commit = () => {
      const at = this.#clock();
      const read = readIndex >= 0 ? this.#entries.get(keys[readIndex] ?? '') : undefined;
      if (read) read.expiresAtMs = Math.max(read.expiresAtMs, at + read.ttlMs);
      for (const write of writes) this.#store(keys[write.index] ?? '', write.ttl, at);
    };
    return { usage, commit };
  }

  #live(key: string, now: number): boolean {
    const entry = this.#entries.get(key);
    if (!entry) return false;
    if (entry.expiresAtMs > now) return true;
    this.#entries.delete(key);
    return false;
  }

  #store(key: string, ttl: CacheTtl, now: number): void {
    const ttlMs = CACHE_TTL_MS[ttl];
    const existing = this.#entries.get(key);
    const entry = { ttlMs: Math.max(ttlMs, existing?.ttlMs ?? 0), expiresAtMs: Math.max(now + ttlMs, existing?.expiresAtMs ?? 0) };
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (this.#entries.size > MAX_ENTRIES) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }
}
