// The models the simulated Messages API knows, with what each can do. Sources:
// - ids, aliases, context windows and max output: Anthropic's models overview
//   (https://platform.claude.com/docs/en/about-claude/models/overview and the per-model pages
//   /docs/en/models/*/overview: "Context window", "Max output"); the SDK's `Model` union
//   (@anthropic-ai/sdk src/resources/messages/messages.ts) lists the current ids.
// - thinking: docs build-with-claude/extended-thinking, "Supported models" (Claude 3.7 Sonnet and
//   every Claude 4 model; Claude 3.5 and 3 Haiku do not think), and which `thinking.type` each
//   accepts: docs build-with-claude/adaptive-thinking, "Supported models" and "Adaptive vs manual vs
//   disabled thinking" — manual `enabled` is "rejected with a 400 error" on Claude Opus 4.7, Opus 4.8
//   and the Claude 5 families (adaptive only); Opus 4.6, Sonnet 4.6 and Mythos Preview take both
//   (manual deprecated); "Older models (Sonnet 4.5, Opus 4.5, etc.) do not support adaptive thinking
//   and require thinking.type: "enabled"". Claude Haiku 5.5, Fable 5.1, Mythos 5.1, Opus 5.5 and
//   Sonnet 5.5 are not named there: assumed adaptive-only like their generation.
// - prompt + max_tokens beyond the context window: docs build-with-claude/extended-thinking, "Max
//   tokens and context window size" ("On Claude 4.5 models and newer, if input tokens plus
//   max_tokens exceeds the context window size, the API accepts the request … On earlier models,
//   the API returns a validation error instead"; before Claude 3.7 Sonnet the API lowered
//   max_tokens silently, so the Claude 3.5 / 3 Haiku entries accept it too).
// - minimum cacheable prompt length: docs build-with-claude/prompt-caching, "Cache limitations"
//   (4,096 tokens for Opus 4.5+/Haiku 4.5, 1,024 for Sonnet 4.x/Opus 4/4.1/Sonnet 3.7, 2,048 for
//   Haiku 3.x; "Shorter prompts cannot be cached, even if marked with cache_control").
// - thinking of earlier turns kept in context: docs build-with-claude/extended-thinking, "Thinking
//   block preservation by model" ("Claude Opus 4.5 and later Opus models keep all prior thinking
//   blocks; Claude Opus 4.1 (deprecated) and earlier Opus models keep only the last assistant turn's
//   thinking. Sonnet: Claude Sonnet 4.6 and later Sonnet models keep all; Claude Sonnet 4.5 and
//   earlier Sonnet models keep only the last turn. Haiku: all Haiku models through Claude Haiku 4.5
//   keep only the last turn. Claude Mythos Preview also keeps all prior thinking blocks"). Haiku 5.5,
//   Fable 5 and Mythos 5 are not named: assumed to keep them, like their generation. It decides
//   what the prompt cache sees (collect-prompt-blocks.ts).
// - rate-limit class: docs api/rate-limits ("rate limits are applied separately for each model";
//   "Opus rate limit is a total limit that applies to combined traffic across … Opus 4.x", the
//   same for Sonnet 4.x and Haiku 4.x).
// An id outside the catalog is answered 404 `not_found_error` "model: <id>", as the real API does.
// `claude-sim`, the simulator's own default model name, behaves like a current thinking model.

export type RateLimitClass =
  | 'claude-opus-5'
  | 'claude-sonnet-5'
  | 'claude-haiku-5'
  | 'claude-fable-5'
  | 'claude-mythos'
  | 'claude-opus-4'
  | 'claude-sonnet-4'
  | 'claude-haiku-4'
  | 'claude-sonnet-3-7'
  | 'claude-haiku-3'
  | 'claude-sim';

/** A `thinking.type` that turns thinking on: manual with a budget, or adaptive. */
export type ThinkingType = 'enabled' | 'adaptive';

const MANUAL: readonly ThinkingType[] = ['enabled'];
const MANUAL_AND_ADAPTIVE: readonly ThinkingType[] = ['enabled', 'adaptive'];
const ADAPTIVE_ONLY: readonly ThinkingType[] = ['adaptive'];
const NO_THINKING: readonly ThinkingType[] = [];

export interface ModelDescription {
  /** The id the API reports for the model (the dated snapshot where one exists). */
  id: string;
  /** Every name the API accepts for it, `id` included. */
  names: readonly string[];
  /** "Max output": the largest accepted `max_tokens`. */
  maxOutputTokens: number;
  /** "Context window": the largest prompt, in tokens. */
  contextWindowTokens: number;
  /** The `thinking.type`s besides `disabled` it accepts; empty for a model that does not think. */
  thinkingTypes: readonly ThinkingType[];
  /** Answers 400 when the prompt's tokens plus max_tokens exceed the context window (Claude 3.7
   * Sonnet and the Claude 4 models before 4.5); every other model accepts such a request. */
  refusesMaxTokensBeyondContextWindow: boolean;
  /** Prompt prefixes shorter than this are processed without caching (no error). */
  minimumCacheableTokens: number;
  /** Thinking blocks of turns before the current one stay in context; false: they are stripped
   * once a user message with anything besides tool results starts a new turn. */
  keepsThinkingOfEarlierTurns: boolean;
  rateLimitClass: RateLimitClass;
  /**
   * Whether `cache_read_input_tokens` count toward the input-tokens-per-minute limit: only for the
   * older models marked † in the docs' rate-limit tables (api/rate-limits: "For Claude Haiku 3.5 and
   * Claude Haiku 3, cache_read_input_tokens also count"; for every other model they do not).
   */
  cacheReadsCountTowardInputLimit: boolean;
}

function model(
  description: Omit<ModelDescription, 'names' | 'cacheReadsCountTowardInputLimit' | 'refusesMaxTokensBeyondContextWindow' | 'keepsThinkingOfEarlierTurns'> & {
    aliases?: readonly string[];
    refusesMaxTokensBeyondContextWindow?: boolean;
    /** Default: the current models keep them; the older ones say false. */
    keepsThinkingOfEarlierTurns?: boolean;
  },
): ModelDescription {
  const { aliases = [], refusesMaxTokensBeyondContextWindow = false, keepsThinkingOfEarlierTurns = true, ...rest } = description;
  return {
    ...rest,
    names: [rest.id, ...aliases],
    refusesMaxTokensBeyondContextWindow,
    keepsThinkingOfEarlierTurns,
    cacheReadsCountTowardInputLimit: rest.rateLimitClass === 'claude-haiku-3',
  };
}

const CATALOG: readonly ModelDescription[] = [
  // The Claude 5 generation as listed by the SDK (1M context, 128K output on the models pages).
  // Their minimum cacheable lengths are not in the stored docs: assumed like the newest 4.x.
  ...(['claude-opus-5-5', 'claude-opus-5'] as const).map((id) =>
    model({ id, maxOutputTokens: 128_000, contextWindowTokens: 1_000_000, thinkingTypes: ADAPTIVE_ONLY, minimumCacheableTokens: 4096, rateLimitClass: 'claude-opus-5' }),
  ),
  ...(['claude-sonnet-5-5', 'claude-sonnet-5'] as const).map((id) =>
    model({ id, maxOutputTokens: 128_000, contextWindowTokens: 1_000_000, thinkingTypes: ADAPTIVE_ONLY, minimumCacheableTokens: 2048, rateLimitClass: 'claude-sonnet-5' }),
  ),
  model({ id: 'claude-haiku-5-5', maxOutputTokens: 64_000, contextWindowTokens: 200_000, thinkingTypes: ADAPTIVE_ONLY, minimumCacheableTokens: 4096, rateLimitClass: 'claude-haiku-5' }),
  ...(['claude-fable-5-1', 'claude-fable-5'] as const).map((id) =>
    model({ id, maxOutputTokens: 128_000, contextWindowTokens: 1_000_000, thinkingTypes: ADAPTIVE_ONLY, minimumCacheableTokens: 4096, rateLimitClass: 'claude-fable-5' }),
  ),
  ...(['claude-mythos-5-1', 'claude-mythos-5'] as const).map((id) =>
    model({ id, maxOutputTokens: 128_000, contextWindowTokens: 1_000_000, thinkingTypes: ADAPTIVE_ONLY, minimumCacheableTokens: 4096, rateLimitClass: 'claude-mythos' }),
  ),
  model({ id: 'claude-mythos-preview', maxOutputTokens: 128_000, contextWindowTokens: 1_000_000, thinkingTypes: MANUAL_AND_ADAPTIVE, minimumCacheableTokens: 4096, rateLimitClass: 'claude-mythos' }),
  // Claude 4.x.
  model({ id: 'claude-opus-4-8', maxOutputTokens: 128_000, contextWindowTokens: 1_000_000, thinkingTypes: ADAPTIVE_ONLY, minimumCacheableTokens: 4096, rateLimitClass: 'claude-opus-4' }),
  model({ id: 'claude-opus-4-7', maxOutputTokens: 128_000, contextWindowTokens: 1_000_000, thinkingTypes: ADAPTIVE_ONLY, minimumCacheableTokens: 4096, rateLimitClass: 'claude-opus-4' }),
  model({ id: 'claude-opus-4-6', maxOutputTokens: 128_000, contextWindowTokens: 1_000_000, thinkingTypes: MANUAL_AND_ADAPTIVE, minimumCacheableTokens: 4096, rateLimitClass: 'claude-opus-4' }),
  model({ id: 'claude-sonnet-4-6', maxOutputTokens: 64_000, contextWindowTokens: 1_000_000, thinkingTypes: MANUAL_AND_ADAPTIVE, minimumCacheableTokens: 1024, rateLimitClass: 'claude-sonnet-4' }),
  model({
    id: 'claude-opus-4-5-20251101',
    aliases: ['claude-opus-4-5'],
    maxOutputTokens: 64_000,
    contextWindowTokens: 200_000,
    thinkingTypes: MANUAL,
    minimumCacheableTokens: 4096,
    rateLimitClass: 'claude-opus-4',
  }),
  model({
    id: 'claude-haiku-4-5-20251001',
    keepsThinkingOfEarlierTurns: false,
    aliases: ['claude-haiku-4-5'],
    maxOutputTokens: 64_000,
    contextWindowTokens: 200_000,
    thinkingTypes: MANUAL,
    minimumCacheableTokens: 4096,
    rateLimitClass: 'claude-haiku-4',
  }),
  model({
    id: 'claude-sonnet-4-5-20250929',
    keepsThinkingOfEarlierTurns: false,
    aliases: ['claude-sonnet-4-5'],
    maxOutputTokens: 64_000,
    contextWindowTokens: 200_000,
    thinkingTypes: MANUAL,
    minimumCacheableTokens: 1024,
    rateLimitClass: 'claude-sonnet-4',
  }),
  model({
    id: 'claude-opus-4-1-20250805',
    keepsThinkingOfEarlierTurns: false,
    aliases: ['claude-opus-4-1'],
    maxOutputTokens: 32_000,
    contextWindowTokens: 200_000,
    thinkingTypes: MANUAL,
    refusesMaxTokensBeyondContextWindow: true,
    minimumCacheableTokens: 1024,
    rateLimitClass: 'claude-opus-4',
  }),
  model({
    id: 'claude-opus-4-20250514',
    keepsThinkingOfEarlierTurns: false,
    aliases: ['claude-opus-4-0'],
    maxOutputTokens: 32_000,
    contextWindowTokens: 200_000,
    thinkingTypes: MANUAL,
    refusesMaxTokensBeyondContextWindow: true,
    minimumCacheableTokens: 1024,
    rateLimitClass: 'claude-opus-4',
  }),
  model({
    id: 'claude-sonnet-4-20250514',
    keepsThinkingOfEarlierTurns: false,
    aliases: ['claude-sonnet-4-0'],
    maxOutputTokens: 64_000,
    contextWindowTokens: 200_000,
    thinkingTypes: MANUAL,
    refusesMaxTokensBeyondContextWindow: true,
    minimumCacheableTokens: 1024,
    rateLimitClass: 'claude-sonnet-4',
  }),
  // Claude 3.x still answering on the API.
  model({
    id: 'claude-3-7-sonnet-20250219',
    keepsThinkingOfEarlierTurns: false,
    aliases: ['claude-3-7-sonnet-latest'],
    maxOutputTokens: 64_000,
    contextWindowTokens: 200_000,
    thinkingTypes: MANUAL,
    refusesMaxTokensBeyondContextWindow: true,
    minimumCacheableTokens: 1024,
    rateLimitClass: 'claude-sonnet-3-7',
  }),
  model({
    id: 'claude-3-5-haiku-20241022',
    keepsThinkingOfEarlierTurns: false,
    aliases: ['claude-3-5-haiku-latest'],
    maxOutputTokens: 8192,
    contextWindowTokens: 200_000,
    thinkingTypes: NO_THINKING,
    minimumCacheableTokens: 2048,
    rateLimitClass: 'claude-haiku-3',
  }),
  model({
    id: 'claude-3-haiku-20240307',
    maxOutputTokens: 4096,
    contextWindowTokens: 200_000,
    thinkingTypes: NO_THINKING,
    minimumCacheableTokens: 2048,
    rateLimitClass: 'claude-haiku-3',
    keepsThinkingOfEarlierTurns: false,
  }),
  // The simulator's own name: a current thinking model with generous limits.
  model({ id: 'claude-sim', maxOutputTokens: 128_000, contextWindowTokens: 1_000_000, thinkingTypes: MANUAL_AND_ADAPTIVE, minimumCacheableTokens: 1024, rateLimitClass: 'claude-sim' }),
];

const BY_NAME: ReadonlyMap<string, ModelDescription> = new Map(CATALOG.flatMap((description) => description.names.map((name) => [name, description] as const)));

/** Every model the simulator knows, newest first. */
export const KNOWN_MODELS: readonly ModelDescription[] = CATALOG;

/** The model an id or alias names, or undefined when the API would answer 404. */
export function lookupModel({ model: name }: { model: string }): ModelDescription | undefined {
  return BY_NAME.get(name);
}

/** Whether `model` thinks in any form (manual or adaptive); false for an unknown model. */
export function modelSupportsThinking(model: string): boolean {
  return (lookupModel({ model })?.thinkingTypes.length ?? 0) > 0;
}

/** Whether `model` accepts `thinking: {type}`; false for an unknown model. */
export function modelAcceptsThinkingType({ model, type }: { model: string; type: ThinkingType }): boolean {
  return lookupModel({ model })?.thinkingTypes.includes(type) ?? false;
}
