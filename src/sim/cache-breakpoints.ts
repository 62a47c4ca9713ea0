// Prompt-cache breakpoints as the real API reads them (docs build-with-claude/prompt-caching):
// `cache_control: {type: 'ephemeral', ttl?: '5m' | '1h'}` on tools, system blocks and message
// content blocks, or once at the top level ("automatic caching": the breakpoint goes on the last
// cacheable block — never a thinking block: "Thinking blocks cannot be cached directly with
// cache_control", "What cannot be cached"). The prompt is read in the order tools → system →
// messages; each breakpoint caches the prefix up to and including its block. A block inside a
// tool_result's content may carry `cache_control` too (SDK ToolResultBlockParam.content holds
// TextBlockParam etc., each with one): the simulator counts it toward the 4 like any other, rather
// than accept a fifth breakpoint the API may refuse, and lets it cache the prefix through the
// enclosing tool_result, the simulator's smallest unit. Rules enforced with the real API's 400s:
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
  /** The breakpoint on this block, if any (`1h` when any of its markers asks for an hour). */
  cacheTtl: CacheTtl | null;
  /** Every `cache_control` in the block, nested ones first, in body order (each counts toward the 4). */
  markers: ReadonlyArray<{ path: string; ttl: CacheTtl }>;
  /** Whether a breakpoint may sit here: false for thinking and redacted_thinking blocks. */
  cacheable: boolean;
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

/** The block's own breakpoint from its markers: the longest lifetime among them. */
export function breakpointTtlOf(markers: ReadonlyArray<{ ttl: CacheTtl }>): CacheTtl | null {
  if (markers.length === 0) return null;
  return markers.some((marker) => marker.ttl === '1h') ? '1h' : '5m';
}

/**
 * Applies the top-level `cache_control` to the last cacheable block and checks the breakpoint
 * rules; returns the blocks with their final breakpoints.
 */
export function settleCacheBreakpoints({ blocks, automatic }: { blocks: readonly PromptBlock[]; automatic: CacheTtl | null }): PromptBlock[] {
  const settled = blocks.map((block) => ({ ...block }));
  const lastCacheable = settled.findLast((block) => block.cacheable);
  if (automatic !== null && lastCacheable && lastCacheable.cacheTtl === null) {
    lastCacheable.markers = [{ path: lastCacheable.path, ttl: automatic }];
    lastCacheable.cacheTtl = automatic;
  }
  const markers = settled.flatMap((block) => block.markers);
  if (markers.length > MAXIMUM_CACHE_BREAKPOINTS) {
    throw new CacheControlInvalid(`A maximum of ${MAXIMUM_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${markers.length}.`);
  }
  let sawFiveMinutes = false;
  for (const marker of markers) {
    if (marker.ttl === '5m') sawFiveMinutes = true;
    if (marker.ttl === '1h' && sawFiveMinutes) {
      throw new CacheControlInvalid(
        `${marker.path}.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. ` +
          'Note that blocks are processed in the following order: `tools`, `system`, `messages`.',
      );
    }
  }
  return settled;
}
