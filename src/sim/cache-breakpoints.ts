// Prompt-cache breakpoints as the real API reads them (docs build-with-claude/prompt-caching):
// `cache_control: {type: 'ephemeral', ttl?: '5m' | '1h'}` on tools, system blocks and message
// content blocks, or once at the top level ("automatic caching": the breakpoint goes on the last
// cacheable block). The prompt is read in the order tools → system → messages; each breakpoint
// caches the prefix up to and including its block. Rules enforced with the real API's 400s:
// - at most 4 breakpoints: "A maximum of 4 blocks with cache_control may be provided. Found N.";
// - `ttl` is '5m' or '1h' (SDK CacheControlEphemeral), `type` is 'ephemeral';
// - "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. Note that
//   blocks are processed in the following order: `tools`, `system`, `messages`." (the docs: "longer
//   TTL entries must appear before shorter TTLs").
import { CACHE_CONTROL_FIELDS, extraFieldMessage, findExtraField } from './request-fields.js';

export type CacheTtl = '5m' | '1h';

export const MAXIMUM_CACHE_BREAKPOINTS = 4;

export const CACHE_TTL_MS: Readonly<Record<CacheTtl, number>> = { '5m': 5 * 60_000, '1h': 60 * 60_000 };

/** One cacheable block of the prompt, in prompt order. */
export interface PromptBlock {
  /** Where the block sits in the body, e.g. `tools.2`, `system.0`, `messages.3.content.1`. */
  path: string;
  /** The block's canonical text: what its tokens are estimated from. */
  text: string;
  /** What identifies the block in a cache key: its text plus anything else that invalidates it. */
  keyText: string;
  /** The breakpoint on this block, if any. */
  cacheTtl: CacheTtl | null;
}

export class CacheControlInvalid extends Error {}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads one `cache_control` value at `path` (absent or null → no breakpoint). */
export function parseCacheControl({ value, path }: { value: unknown; path: string }): CacheTtl | null {
  if (value === undefined || value === null) return null;
  if (!isRecord(value)) throw new CacheControlInvalid(`${path}: Input should be a valid dictionary or object to extract fields from`);
  if (value.type !== 'ephemeral') {
    throw new CacheControlInvalid(
      `${path}: Input tag ${JSON.stringify(String(value.type))} found using 'type' does not match any of the expected tags: 'ephemeral'`,
    );
  }
  const extra = findExtraField({ record: value, allowed: CACHE_CONTROL_FIELDS });
  if (extra !== undefined) throw new CacheControlInvalid(extraFieldMessage({ path: `${path}.ephemeral.${extra}` }));
  if (value.ttl === undefined || value.ttl === null) return '5m';
  if (value.ttl !== '5m' && value.ttl !== '1h') throw new CacheControlInvalid(`${path}.ephemeral.ttl: Input should be '5m' or '1h'`);
  return value.ttl;
}

/**
 * Applies the top-level `cache_control` to the last block and checks the breakpoint rules; returns
 * the blocks with their final breakpoints.
 */
export function settleCacheBreakpoints({ blocks, automatic }: { blocks: readonly PromptBlock[]; automatic: CacheTtl | null }): PromptBlock[] {
  const settled = blocks.map((block) => ({ ...block }));
  const last = settled.at(-1);
  if (automatic !== null && last && last.cacheTtl === null) last.cacheTtl = automatic;
  const breakpoints = settled.filter((block) => block.cacheTtl !== null);
  if (breakpoints.length > MAXIMUM_CACHE_BREAKPOINTS) {
    throw new CacheControlInvalid(`A maximum of ${MAXIMUM_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints.length}.`);
  }
  let sawFiveMinutes = false;
  for (const block of breakpoints) {
    if (block.cacheTtl === '5m') sawFiveMinutes = true;
    if (block.cacheTtl === '1h' && sawFiveMinutes) {
      throw new CacheControlInvalid(
        `${block.path}.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. ` +
          'Note that blocks are processed in the following order: `tools`, `system`, `messages`.',
      );
    }
  }
  return settled;
}
