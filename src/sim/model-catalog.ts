// The models the simulated Messages API knows, with what each generation allows, read on
// 2026-11-28. This catalog is the simulator's own reading of the documentation, kept apart from the
// fleet's catalog (src/domain/model-catalog.ts) on purpose: a wrong entry there fails a test here.
// Sources (platform.claude.com/docs/en/…):
// - lineup, ids, context windows, max output, lifecycle: about-claude/models/overview, each
//   models/<model>/overview and whats-new page, about-claude/model-deprecations ("Requests to
//   retired models will fail"; the API answers 404 not_found_error "model: <id>", as for an
//   unknown id); the Messages page's `supportedModels` lists every model not retired.
// - thinking: build-with-claude/adaptive-thinking and /thinking; models/opus-5-5/whats-new-opus-5-5
//   ("thinking is always on … `disabled` and `enabled` return 400"); models/opus-5/whats-new-opus-5
//   ("thinking is on by default, and thinking can be disabled only at effort high or below");
//   models/sonnet-5-5/migration-guide ("send `thinking: {"type": "between_tools"}`" instead of
//   disabled; between_tools only at effort low/medium/high, and it "takes no other field");
//   models/fable-5/migration-guide ("Both thinking: {type: "disabled"} and manual extended
//   thinking … return a 400 error", Fable 5.x and Mythos 5.x); models/haiku-5-5/whats-new-haiku-5-5
//   ("Manual extended thinking returns an error"; disabling allowed at effort high or below);
//   Opus 4.8 runs without thinking unless asked (whats-new-claude-4-8); Opus 4.7+ adaptive only.
// - display: build-with-claude/thinking#controlling-thinking-display ("omitted" is the default on
//   Fable 5.x, Mythos 5.x, Opus 5.5, Opus 5, Sonnet 5.5, Sonnet 5, Opus 4.8, Opus 4.7, Mythos
//   Preview and Haiku 5.5; "summarized" on Opus 4.6, Sonnet 4.6 and earlier); `updates` is beta
//   (`thinking-display-updates-2026-08-18`) on the models that write progress updates.
// - progress updates (text between tool calls inside thinking blocks): build-with-claude/thinking
//   #progress-updates (Fable 5.1, Mythos 5.1, Opus 5.5, Sonnet 5.5, Fable 5; Sonnet 5.5 only for
//   "notes longer than a sentence or two … Shorter remarks stay text").
// - effort: build-with-claude/effort (levels per model; default high, medium on Opus 5.5 and
//   Haiku 5.5; xhigh from Opus 4.7; Opus 4.5 low/medium/high only; not on Sonnet 4.5 / Haiku 4.5).
// - forced tool_choice: models/fable-5-1/whats-new-fable-5-1, models/opus-5-5/whats-new-opus-5-5,
//   models/sonnet-5-5/whats-new-sonnet-5-5 ("Forced tool use returns an error"); Haiku 5.5 accepts
//   it "but the response starts with the tool call and has no thinking block"
//   (models/haiku-5-5/migration-guide).
// - mid-conversation system messages: build-with-claude/mid-conversation-system-messages (Fable
//   5.x, Mythos 5.x, Opus 5.5, Opus 5, Opus 4.8, Sonnet 5.5, Haiku 5.5; "not available on Claude
//   Sonnet 5"); tool changes (`tool_addition` / `tool_removal`, beta
//   `mid-conversation-tool-changes-2026-07-01`) on the same models.
// - strict tool use: agents-and-tools/tool-use/strict-tool-use (structured outputs GA on the
//   Claude 4.5 models and later).
// - minimum cacheable prompt: build-with-claude/prompt-caching, "Cache limitations" (512 on Opus
//   5, Fable 5, Mythos 5 and the 5.5 models; 1,024 on Opus 4.8, Sonnet 5, Sonnet 4.x, Opus 4.1/4;
//   2,048 on Opus 4.7, Mythos Preview, Haiku 3.5; 4,096 on Opus 4.6, Opus 4.5, Haiku 4.5).
// - tokenizer: build-with-claude/token-counting ("Claude Opus 4.7 and later Opus models, Claude
//   Fable 5, Claude Mythos 5, Claude Mythos Preview, and Claude Sonnet 5 use a newer tokenizer. The
//   same input text produces approximately 30 percent more tokens"); Sonnet 5.5 and Haiku 5.5 use it
//   too (their whats-new pages).
// - prefix binding of thinking blocks: build-with-claude/preserved-thinking (Fable 5.2, Mythos
//   5.2, Fable 5.1, Mythos 5.1, Opus 5.5, Sonnet 5.5, Haiku 5.5: editing what precedes a block →
//   400 "bound to a different conversation").
// - sampling: non-default temperature / top_p / top_k → 400 on Opus 4.7 and later, Sonnet 5+,
//   Haiku 5.5, Fable / Mythos (models' migration guides).
// - assistant prefill: "This model does not support assistant message prefill. The conversation
//   must end with a user message." (models/sonnet-5-5/migration-guide); not supported on Opus 4.6
//   (whats-new-claude-4-6) and so on the Opus models after it, an error on Haiku 5.5
//   (models/haiku-5-5/migration-guide), removed on Opus 5, the 5.5 models and Fable / Mythos 5.x
//   (their migration guides, as summarized by third parties).
// - which model reads which thinking blocks: build-with-claude/preserved-thinking#switching-models
//   (a block the requested model may not read is dropped silently, and not counted as input).
// - rate-limit class: api/rate-limits (one table each for Fable 5.x, Opus 5.5, Opus 5, Opus 4.x,
//   Sonnet 5.5, Sonnet 5, Sonnet 4.x, Haiku 5.5, Haiku 4.5).
// - prompt + max_tokens beyond the window: build-with-claude/extended-thinking ("On Claude 4.5
//   models and newer … the API accepts the request"; earlier ones answer 400).
// - thinking of earlier turns kept in context: build-with-claude/extended-thinking, "Thinking
//   block preservation by model" (Opus 4.5+ and Sonnet 4.6+ keep all; older ones the last turn).
// Not found in the docs, and assumed like the generation they belong to: Fable 5.2's and Mythos
// 5.2's cache minimum (512, as Fable 5.1), Mythos' rate-limit class (its own).
// `claude-sim`, the simulator's own model name, behaves like a current thinking model that allows
// everything (it predates the catalog; tests of generation rules name real ids).

export type RateLimitClass =
  | 'claude-fable-5'
  | 'claude-mythos'
  | 'claude-opus-5-5'
  | 'claude-opus-5'
  | 'claude-sonnet-5-5'
  | 'claude-sonnet-5'
  | 'claude-haiku-5-5'
  | 'claude-opus-4'
  | 'claude-sonnet-4'
  | 'claude-haiku-4'
  | 'claude-sonnet-3-7'
  | 'claude-haiku-3'
  | 'claude-sim';

/** A `thinking.type` that turns thinking on, in some form. */
export type ThinkingType = 'enabled' | 'adaptive' | 'between_tools';
export type EffortLevel = 'low' | 'medium' | 'high' | 'xhigh' | 'max';
export type ThinkingDisplay = 'summarized' | 'omitted' | 'updates';
/** The API's lifecycle stage (Models API `lifecycle`); "legacy" models are `active` there. */
export type ModelLifecycle = 'active' | 'deprecated' | 'retired';
export type ModelLine = 'haiku' | 'sonnet' | 'opus' | 'fable' | 'mythos';

const MANUAL: readonly ThinkingType[] = ['enabled'];
const MANUAL_AND_ADAPTIVE: readonly ThinkingType[] = ['enabled', 'adaptive'];
const ADAPTIVE_ONLY: readonly ThinkingType[] = ['adaptive'];
const NO_THINKING: readonly ThinkingType[] = [];

const ALL_EFFORTS: readonly EffortLevel[] = ['low', 'medium', 'high', 'xhigh', 'max'];
const EFFORTS_TO_MAX: readonly EffortLevel[] = ['low', 'medium', 'high', 'max'];
const EFFORTS_TO_HIGH: readonly EffortLevel[] = ['low', 'medium', 'high'];

export interface ModelDescription {
  /** The id the API reports for the model (the dated snapshot where one exists). */
  id: string;
  /** Every name the API accepts for it, `id` included. */
  names: readonly string[];
  displayName: string;
  line: ModelLine | null;
  /** Release date (Models API `created_at`), YYYY-MM-DD. */
  releasedOn: string;
  lifecycle: ModelLifecycle;
  /** Deprecation and retirement dates (YYYY-MM-DD) where one is set. */
  deprecatedOn: string | null;
  retiresOn: string | null;
  /** "Max output": the largest accepted `max_tokens`. */
  maxOutputTokens: number;
  /** "Context window": the largest prompt, in tokens. */
  contextWindowTokens: number;
  /** The `thinking.type`s besides `disabled` it accepts; empty for a model that does not think. */
  thinkingTypes: readonly ThinkingType[];
  /** Thinking when the request has no `thinking` field: `adaptive` on the models that think by default. */
  thinkingWhenOmitted: 'off' | 'adaptive';
  /** Whether thinking may be off: always; never (`disabled` → 400); or only at effort high or below
   * (`disabled`, or an omitted `thinking` on a model that thinks only when asked, with effort
   * xhigh / max → 400). */
  disabling: 'accepted' | 'refused' | 'effort_high_or_below';
  /** The display when the request names none; null on models that do not think. */
  defaultDisplay: 'summarized' | 'omitted' | null;
  /** Accepts `display: 'updates'` (beta `thinking-display-updates-2026-08-18`). */
  updatesDisplay: boolean;
  /** Text written between tool calls comes back as a progress-update thinking block: all of it,
   * only notes longer than a sentence or two (Sonnet 5.5), or none (it stays text). */
  progressUpdates: 'all' | 'long_notes' | 'none';
  /** Accepted `output_config.effort` levels (empty: the parameter is refused) and the default. */
  effortLevels: readonly EffortLevel[];
  defaultEffort: EffortLevel | null;
  /** tool_choice `any` / `tool`: allowed (subject to the thinking rules), refused outright, or
   * accepted with thinking skipped (Haiku 5.5). */
  forcedToolChoice: 'allowed' | 'refused' | 'skips_thinking';
  midConversationSystemMessages: boolean;
  midConversationToolChanges: boolean;
  strictTools: boolean;
  /** Non-default temperature / top_p / top_k are refused (400). */
  refusesSampling: boolean;
  /** Thinking blocks are bound to the conversation before them (preserved-thinking). */
  prefixBoundThinking: boolean;
  /** Besides this model, the models that read its thinking blocks: `any`, or only those listed;
   * a model not allowed drops the block silently (build-with-claude/preserved-thinking#switching-models). */
  thinkingReadableBy: 'any' | readonly string[];
  /** Producers whose thinking blocks this model does not read, whatever the producer allows. */
  unreadableThinkingOf: readonly string[];
  /** A conversation that ends with an assistant message (prefill) is refused (400). */
  refusesPrefill: boolean;
  /** Tokens per character relative to the older tokenizer: 1.3 on the newer one. */
  tokenizer: 'classic' | 'newer';
  /** Prompt prefixes shorter than this are processed without caching (no error). */
  minimumCacheableTokens: number;
  /** Thinking blocks of turns before the current one stay in context; false: they are stripped
   * once a user message with anything besides tool results starts a new turn. */
  keepsThinkingOfEarlierTurns: boolean;
  rateLimitClass: RateLimitClass;
  /** Whether `cache_read_input_tokens` count toward the input-tokens-per-minute limit (api/rate-limits:
   * "For Claude Haiku 3.5 and Claude Haiku 3, cache_read_input_tokens also count"). */
  cacheReadsCountTowardInputLimit: boolean;
}

/** The facts `model()` defaults (to the older generations' values) when an entry leaves them out. */
type DefaultedFact =
  | 'keepsThinkingOfEarlierTurns'
  | 'deprecatedOn'
  | 'retiresOn'
  | 'updatesDisplay'
  | 'progressUpdates'
  | 'midConversationSystemMessages'
  | 'midConversationToolChanges'
  | 'refusesSampling'
  | 'prefixBoundThinking'
  | 'thinkingReadableBy'
  | 'unreadableThinkingOf'
  | 'refusesPrefill';

type ModelFacts = Omit<ModelDescription, 'names' | 'cacheReadsCountTowardInputLimit' | DefaultedFact> &
  Partial<Pick<ModelDescription, DefaultedFact>> & { aliases?: readonly string[] };

function model(facts: ModelFacts): ModelDescription {
  const { aliases = [], ...rest } = facts;
  return {
    keepsThinkingOfEarlierTurns: true,
    deprecatedOn: null,
    retiresOn: null,
    updatesDisplay: false,
    progressUpdates: 'none',
    midConversationSystemMessages: false,
    midConversationToolChanges: false,
    refusesSampling: false,
    prefixBoundThinking: false,
    thinkingReadableBy: 'any',
    unreadableThinkingOf: [],
    refusesPrefill: false,
    ...rest,
    names: [rest.id, ...aliases],
    cacheReadsCountTowardInputLimit: rest.rateLimitClass === 'claude-haiku-3',
  };
}

/** What every Claude 5 model with preserved thinking shares (Fable 5.1+, Mythos 5.1+, the 5.5s). */
const PRESERVED_THINKING_GENERATION = {
  contextWindowTokens: 1_000_000,
  maxOutputTokens: 128_000,
  thinkingTypes: ADAPTIVE_ONLY,
  thinkingWhenOmitted: 'adaptive',
  defaultDisplay: 'omitted',
  updatesDisplay: true,
  progressUpdates: 'all',
  effortLevels: ALL_EFFORTS,
  midConversationSystemMessages: true,
  midConversationToolChanges: true,
  strictTools: true,
  refusesSampling: true,
  prefixBoundThinking: true,
  refusesPrefill: true,
  tokenizer: 'newer',
  minimumCacheableTokens: 512,
} as const;

/** The models that read a Fable / Mythos 5.1 or 5.2 model's thinking blocks besides itself. */
const FABLE_GENERATION_READERS: Readonly<Record<string, readonly string[]>> = {
  'claude-fable-5-2': ['claude-mythos-5-2'],
  'claude-mythos-5-2': ['claude-fable-5-2'],
  'claude-fable-5-1': ['claude-mythos-5-1', 'claude-fable-5-2', 'claude-mythos-5-2'],
  'claude-mythos-5-1': ['claude-fable-5-1', 'claude-fable-5-2', 'claude-mythos-5-2'],
};
/** Earlier Fable / Mythos models, whose blocks neither Sonnet 5.5 nor Opus 5.5 reads. */
const EARLIER_FABLE_GENERATION = ['claude-fable-5', 'claude-mythos-5', 'claude-mythos-preview'] as const;

/** Claude Sonnet 4.6, and the pattern of the simulator's own `claude-sim`. */
const SONNET_4_6: ModelFacts = {
  id: 'claude-sonnet-4-6',
  displayName: 'Claude Sonnet 4.6',
  line: 'sonnet',
  releasedOn: '2026-02-17',
  lifecycle: 'active',
  maxOutputTokens: 128_000,
  contextWindowTokens: 1_000_000,
  thinkingTypes: MANUAL_AND_ADAPTIVE,
  thinkingWhenOmitted: 'off',
  disabling: 'accepted',
  defaultDisplay: 'summarized',
  effortLevels: EFFORTS_TO_MAX,
  defaultEffort: 'high',
  forcedToolChoice: 'allowed',
  strictTools: true,
  tokenizer: 'classic',
  minimumCacheableTokens: 1024,
  rateLimitClass: 'claude-sonnet-4',
};

const CATALOG: readonly ModelDescription[] = [
  // Fable and Mythos 5.x: thinking always on (adaptive only), forced tool use refused from 5.1.
  ...(
    [
      ['claude-fable-5-2', 'Claude Fable 5.2', 'fable', '2026-11-09', 'claude-fable-5'],
      ['claude-mythos-5-2', 'Claude Mythos 5.2', 'mythos', '2026-11-09', 'claude-mythos'],
      ['claude-fable-5-1', 'Claude Fable 5.1', 'fable', '2026-09-01', 'claude-fable-5'],
      ['claude-mythos-5-1', 'Claude Mythos 5.1', 'mythos', '2026-09-01', 'claude-mythos'],
    ] as const
  ).map(([id, displayName, line, releasedOn, rateLimitClass]) =>
    model({
      id,
      displayName,
      line,
      releasedOn,
      lifecycle: 'active',
      ...PRESERVED_THINKING_GENERATION,
      disabling: 'refused',
      defaultEffort: 'high',
      forcedToolChoice: 'refused',
      thinkingReadableBy: FABLE_GENERATION_READERS[id] ?? [],
      rateLimitClass,
    }),
  ),
  ...(
    [
      ['claude-fable-5', 'Claude Fable 5', 'fable', 'claude-fable-5'],
      ['claude-mythos-5', 'Claude Mythos 5', 'mythos', 'claude-mythos'],
    ] as const
  ).map(([id, displayName, line, rateLimitClass]) =>
    model({
      id,
      displayName,
      line,
      releasedOn: '2026-06-09',
      lifecycle: 'active',
      ...PRESERVED_THINKING_GENERATION,
      // Fable 5: progress updates, but no `updates` display or prefix binding before 5.1.
      updatesDisplay: false,
      prefixBoundThinking: false,
      disabling: 'refused',
      defaultEffort: 'high',
      forcedToolChoice: 'allowed',
      rateLimitClass,
    }),
  ),
  model({
    id: 'claude-mythos-preview',
    displayName: 'Claude Mythos Preview',
    line: 'mythos',
    releasedOn: '2026-04-07',
    lifecycle: 'deprecated',
    deprecatedOn: '2026-04-07',
    // The SDK's own deprecation data: "'claude-mythos-preview': 'June 30th, 2026'"
    // (@anthropic-ai/sdk internal/data/deprecated-models.js); still served past it (the Messages
    // page lists it), which the Models API's lifecycle says: "A past date on a deprecated model
    // means retirement is overdue, not that it has occurred" (SDK resources/models.d.ts retires_at).
    retiresOn: '2026-06-30',
    maxOutputTokens: 128_000,
    contextWindowTokens: 1_000_000,
    thinkingTypes: MANUAL_AND_ADAPTIVE,
    thinkingWhenOmitted: 'adaptive',
    disabling: 'refused',
    defaultDisplay: 'omitted',
    effortLevels: EFFORTS_TO_MAX,
    defaultEffort: 'high',
    forcedToolChoice: 'allowed',
    strictTools: true,
    refusesSampling: true,
    tokenizer: 'newer',
    minimumCacheableTokens: 2048,
    rateLimitClass: 'claude-mythos',
  }),
  // Opus 5.5: thinking always on, forced tool use refused, default effort medium.
  model({
    id: 'claude-opus-5-5',
    displayName: 'Claude Opus 5.5',
    line: 'opus',
    releasedOn: '2026-09-22',
    lifecycle: 'active',
    ...PRESERVED_THINKING_GENERATION,
    disabling: 'refused',
    defaultEffort: 'medium',
    forcedToolChoice: 'refused',
    // Read by Fable 5.1 / Mythos 5.1 (and, assumed, their 5.2 successors); reads Opus 5 and every
    // earlier Opus / Sonnet / Haiku, no Fable or Mythos (preserved-thinking#switching-models).
    thinkingReadableBy: ['claude-fable-5-1', 'claude-mythos-5-1', 'claude-fable-5-2', 'claude-mythos-5-2'],
    unreadableThinkingOf: EARLIER_FABLE_GENERATION,
    rateLimitClass: 'claude-opus-5-5',
  }),
  // Opus 5: thinking on by default, disabled only at effort high or below; no progress updates.
  model({
    id: 'claude-opus-5',
    displayName: 'Claude Opus 5',
    line: 'opus',
    releasedOn: '2026-07-24',
    lifecycle: 'active',
    maxOutputTokens: 128_000,
    contextWindowTokens: 1_000_000,
    thinkingTypes: ADAPTIVE_ONLY,
    thinkingWhenOmitted: 'adaptive',
    disabling: 'effort_high_or_below',
    defaultDisplay: 'omitted',
    effortLevels: ALL_EFFORTS,
    defaultEffort: 'high',
    forcedToolChoice: 'allowed',
    midConversationSystemMessages: true,
    midConversationToolChanges: true,
    strictTools: true,
    refusesSampling: true,
    refusesPrefill: true,
    tokenizer: 'newer',
    minimumCacheableTokens: 512,
    rateLimitClass: 'claude-opus-5',
  }),
  // Sonnet 5.5: thinking on by default; `between_tools` instead of `disabled`; forced tool use refused.
  model({
    id: 'claude-sonnet-5-5',
    displayName: 'Claude Sonnet 5.5',
    line: 'sonnet',
    releasedOn: '2026-09-28',
    lifecycle: 'active',
    ...PRESERVED_THINKING_GENERATION,
    thinkingTypes: ['adaptive', 'between_tools'],
    progressUpdates: 'long_notes',
    disabling: 'refused',
    defaultEffort: 'high',
    forcedToolChoice: 'refused',
    // "No other model reads thinking blocks from Claude Sonnet 5.5"; it reads Sonnet 5, Opus 4.8,
    // Haiku 4.5 and earlier, not Opus 5, Opus 5.5 or any Fable / Mythos (preserved-thinking#switching-models).
    thinkingReadableBy: [],
    unreadableThinkingOf: ['claude-opus-5', ...EARLIER_FABLE_GENERATION],
    rateLimitClass: 'claude-sonnet-5-5',
  }),
  // Sonnet 5: thinking on by default and may be disabled; no mid-conversation system messages.
  model({
    id: 'claude-sonnet-5',
    displayName: 'Claude Sonnet 5',
    line: 'sonnet',
    releasedOn: '2026-06-30',
    lifecycle: 'active',
    maxOutputTokens: 128_000,
    contextWindowTokens: 1_000_000,
    thinkingTypes: ADAPTIVE_ONLY,
    thinkingWhenOmitted: 'adaptive',
    disabling: 'accepted',
    defaultDisplay: 'omitted',
    effortLevels: ALL_EFFORTS,
    defaultEffort: 'high',
    forcedToolChoice: 'allowed',
    strictTools: true,
    refusesSampling: true,
    tokenizer: 'newer',
    minimumCacheableTokens: 1024,
    rateLimitClass: 'claude-sonnet-5',
  }),
  // Haiku 5.5: thinking on by default (off at effort high or below); forced tool use skips thinking.
  model({
    id: 'claude-haiku-5-5',
    displayName: 'Claude Haiku 5.5',
    line: 'haiku',
    releasedOn: '2026-10-07',
    lifecycle: 'active',
    ...PRESERVED_THINKING_GENERATION,
    updatesDisplay: false,
    progressUpdates: 'none',
    disabling: 'effort_high_or_below',
    defaultEffort: 'medium',
    forcedToolChoice: 'skips_thinking',
    // Not in the switching-models matrix; assumed bound like Sonnet 5.5 (account-bound blocks that
    // "work only in the account that produced them", models/haiku-5-5/whats-new-haiku-5-5).
    thinkingReadableBy: [],
    rateLimitClass: 'claude-haiku-5-5',
  }),
  // Claude 4.x.
  model({
    id: 'claude-opus-4-8',
    displayName: 'Claude Opus 4.8',
    line: 'opus',
    releasedOn: '2026-05-28',
    lifecycle: 'active',
    maxOutputTokens: 128_000,
    contextWindowTokens: 1_000_000,
    thinkingTypes: ADAPTIVE_ONLY,
    thinkingWhenOmitted: 'off',
    // "xhigh / max with thinking off → 400" (models/opus-5/whats-new-opus-5 on Opus 4.8 code; the
    // observed wording in model-facts §12).
    disabling: 'effort_high_or_below',
    defaultDisplay: 'omitted',
    effortLevels: ALL_EFFORTS,
    defaultEffort: 'high',
    forcedToolChoice: 'allowed',
    midConversationSystemMessages: true,
    midConversationToolChanges: true,
    strictTools: true,
    refusesSampling: true,
    refusesPrefill: true,
    tokenizer: 'newer',
    minimumCacheableTokens: 1024,
    rateLimitClass: 'claude-opus-4',
  }),
  model({
    id: 'claude-opus-4-7',
    displayName: 'Claude Opus 4.7',
    line: 'opus',
    releasedOn: '2026-04-16',
    lifecycle: 'active',
    maxOutputTokens: 128_000,
    contextWindowTokens: 1_000_000,
    thinkingTypes: ADAPTIVE_ONLY,
    thinkingWhenOmitted: 'off',
    disabling: 'accepted',
    defaultDisplay: 'omitted',
    effortLevels: ALL_EFFORTS,
    defaultEffort: 'high',
    forcedToolChoice: 'allowed',
    strictTools: true,
    refusesSampling: true,
    refusesPrefill: true,
    tokenizer: 'newer',
    minimumCacheableTokens: 2048,
    rateLimitClass: 'claude-opus-4',
  }),
  model({
    id: 'claude-opus-4-6',
    displayName: 'Claude Opus 4.6',
    line: 'opus',
    releasedOn: '2026-02-05',
    lifecycle: 'active',
    maxOutputTokens: 128_000,
    contextWindowTokens: 1_000_000,
    thinkingTypes: MANUAL_AND_ADAPTIVE,
    thinkingWhenOmitted: 'off',
    disabling: 'accepted',
    defaultDisplay: 'summarized',
    effortLevels: EFFORTS_TO_MAX,
    defaultEffort: 'high',
    forcedToolChoice: 'allowed',
    strictTools: true,
    // "Prefilling is not supported on Opus 4.6" (about-claude/models/whats-new-claude-4-6).
    refusesPrefill: true,
    tokenizer: 'classic',
    minimumCacheableTokens: 4096,
    rateLimitClass: 'claude-opus-4',
  }),
  model(SONNET_4_6),
  model({
    id: 'claude-opus-4-5-20251101',
    aliases: ['claude-opus-4-5'],
    displayName: 'Claude Opus 4.5',
    line: 'opus',
    releasedOn: '2025-11-24',
    lifecycle: 'active',
    maxOutputTokens: 64_000,
    contextWindowTokens: 200_000,
    thinkingTypes: MANUAL,
    thinkingWhenOmitted: 'off',
    disabling: 'accepted',
    defaultDisplay: 'summarized',
    effortLevels: EFFORTS_TO_HIGH,
    defaultEffort: 'high',
    forcedToolChoice: 'allowed',
    strictTools: true,
    tokenizer: 'classic',
    minimumCacheableTokens: 4096,
    rateLimitClass: 'claude-opus-4',
  }),
  model({
    id: 'claude-haiku-4-5-20251001',
    aliases: ['claude-haiku-4-5'],
    displayName: 'Claude Haiku 4.5',
    line: 'haiku',
    releasedOn: '2025-10-15',
    lifecycle: 'active',
    keepsThinkingOfEarlierTurns: false,
    maxOutputTokens: 64_000,
    contextWindowTokens: 200_000,
    thinkingTypes: MANUAL,
    thinkingWhenOmitted: 'off',
    disabling: 'accepted',
    defaultDisplay: 'summarized',
    effortLevels: [],
    defaultEffort: null,
    forcedToolChoice: 'allowed',
    strictTools: true,
    tokenizer: 'classic',
    minimumCacheableTokens: 4096,
    rateLimitClass: 'claude-haiku-4',
  }),
  // Deprecated: "still functional but no longer recommended, and retires on November 30, 2026"
  // (models/sonnet-4-5/overview); the replacement is Claude Sonnet 5.5.
  model({
    id: 'claude-sonnet-4-5-20250929',
    aliases: ['claude-sonnet-4-5'],
    displayName: 'Claude Sonnet 4.5',
    line: 'sonnet',
    releasedOn: '2025-09-29',
    lifecycle: 'deprecated',
    deprecatedOn: '2026-08-28',
    retiresOn: '2026-11-30',
    keepsThinkingOfEarlierTurns: false,
    maxOutputTokens: 64_000,
    contextWindowTokens: 200_000,
    thinkingTypes: MANUAL,
    thinkingWhenOmitted: 'off',
    disabling: 'accepted',
    defaultDisplay: 'summarized',
    effortLevels: [],
    defaultEffort: null,
    forcedToolChoice: 'allowed',
    strictTools: true,
    tokenizer: 'classic',
    minimumCacheableTokens: 1024,
    rateLimitClass: 'claude-sonnet-4',
  }),
  // Retired (model-deprecations): requests fail with 404; the Models API lists them only when
  // asked for `lifecycle=retired`.
  ...(
    [
      ['claude-opus-4-1-20250805', ['claude-opus-4-1'], 'Claude Opus 4.1', 'opus', '2025-08-05', '2026-06-05', '2026-08-05', 32_000, 'claude-opus-4'],
      ['claude-opus-4-20250514', ['claude-opus-4-0'], 'Claude Opus 4', 'opus', '2025-05-22', '2026-04-14', '2026-06-15', 32_000, 'claude-opus-4'],
      ['claude-sonnet-4-20250514', ['claude-sonnet-4-0'], 'Claude Sonnet 4', 'sonnet', '2025-05-22', '2026-04-14', '2026-06-15', 64_000, 'claude-sonnet-4'],
      [
        'claude-3-7-sonnet-20250219',
        ['claude-3-7-sonnet-latest'],
        'Claude Sonnet 3.7',
        'sonnet',
        '2025-02-24',
        '2025-10-28',
        '2026-02-19',
        64_000,
        'claude-sonnet-3-7',
      ],
      ['claude-3-5-haiku-20241022', ['claude-3-5-haiku-latest'], 'Claude Haiku 3.5', 'haiku', '2024-10-22', '2025-12-19', '2026-02-19', 8192, 'claude-haiku-3'],
      ['claude-3-haiku-20240307', [], 'Claude Haiku 3', 'haiku', '2024-03-07', '2026-01-20', '2026-04-20', 4096, 'claude-haiku-3'],
    ] as const
  ).map(([id, aliases, displayName, line, releasedOn, deprecatedOn, retiresOn, maxOutputTokens, rateLimitClass]) =>
    model({
      id,
      aliases,
      displayName,
      line,
      releasedOn,
      lifecycle: 'retired',
      deprecatedOn,
      retiresOn,
      keepsThinkingOfEarlierTurns: false,
      maxOutputTokens,
      contextWindowTokens: 200_000,
      thinkingTypes: line === 'haiku' ? NO_THINKING : MANUAL,
      thinkingWhenOmitted: 'off',
      disabling: 'accepted',
      defaultDisplay: line === 'haiku' ? null : 'summarized',
      effortLevels: [],
      defaultEffort: null,
      forcedToolChoice: 'allowed',
      strictTools: false,
      tokenizer: 'classic',
      minimumCacheableTokens: line === 'haiku' ? 2048 : 1024,
      rateLimitClass,
    }),
  ),
  // The simulator's own name: Claude Sonnet 4.6's rules (both thinking forms, forced tool_choice,
  // prefill) under a rate-limit class of its own.
  model({ ...SONNET_4_6, id: 'claude-sim', displayName: 'Claude (simulated)', line: null, releasedOn: '2026-01-01', rateLimitClass: 'claude-sim' }),
];

const BY_NAME: ReadonlyMap<string, ModelDescription> = new Map(CATALOG.flatMap((description) => description.names.map((name) => [name, description] as const)));

/** Every model the simulator knows, newest first, retired ones included. */
export const KNOWN_MODELS: readonly ModelDescription[] = CATALOG;

/** The simulator's default model (`buildfleet sim`, the chat endpoint's internal model): a current one. */
export const SIMULATOR_DEFAULT_MODEL = 'claude-sonnet-5-5';

/** The model an id or alias names, retired ones included (callers answer those 404), or
 * undefined when the id is unknown. */
export function lookupModel({ model: name }: { model: string }): ModelDescription | undefined {
  return BY_NAME.get(name);
}

/** The model an id or alias names when a Messages request may use it: undefined for an unknown
 * or retired model, both answered 404 `not_found_error` "model: <id>". */
export function lookupServedModel({ model: name }: { model: string }): ModelDescription | undefined {
  const description = BY_NAME.get(name);
  return description && description.lifecycle !== 'retired' ? description : undefined;
}

/** Whether `model` thinks in any form (manual or adaptive); false for an unknown model. */
export function modelSupportsThinking(model: string): boolean {
  return (lookupModel({ model })?.thinkingTypes.length ?? 0) > 0;
}

/** Whether `model` accepts `thinking: {type}`; false for an unknown model. */
export function modelAcceptsThinkingType({ model, type }: { model: string; type: ThinkingType }): boolean {
  return lookupModel({ model })?.thinkingTypes.includes(type) ?? false;
}

/** Token count multiplier of the model's tokenizer over the older one (token-counting docs: "approximately 30 percent more"). */
export function tokenizerRatio(description: Pick<ModelDescription, 'tokenizer'>): number {
  return description.tokenizer === 'newer' ? 1.3 : 1;
}
