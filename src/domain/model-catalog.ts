// The fleet's one model catalog: what each Claude model allows, what it costs and where it is in its
// life, read from Anthropic's documentation on 2026-11-28. Code asks this catalog (through
// model-capabilities.ts, model-prices.ts and resolve-run-model-settings.ts); it never compares model ids. At
// boot and on a timer the catalog is checked against the provider's Models API
// (src/model/models-api-check.ts), whose word wins where they disagree.
//
// Sources, per fact (platform.claude.com/docs/en/…):
// - [overview] about-claude/models/overview and models/<model>/overview: context window, max
//   output, price, thinking mode, default effort, lifecycle label.
// - [deprecations] about-claude/model-deprecations: Active / Legacy / Deprecated (with retirement
//   date and replacement) / Retired ("Requests to retired models will fail"). Retired: Claude Opus
//   4.1 (2026-08-05), Opus 4 and Sonnet 4 (2026-06-15, release notes: migrate to Opus 4.8 / Sonnet
//   4.6), Haiku 3 (2026-04-20), Sonnet 3.7 and Haiku 3.5 (2026-02-19). Claude Sonnet 4.5 "is
//   deprecated … and retires on November 30, 2026" (replacement Claude Sonnet 5.5). The SDK's own
//   data marks Mythos Preview deprecated (@anthropic-ai/sdk internal/data/deprecated-models.js).
// - [thinking] build-with-claude/adaptive-thinking, build-with-claude/thinking, and each
//   whats-new page: Opus 4.7+ and every Claude 5 model accept only adaptive thinking (manual
//   `enabled` is a 400); Fable / Mythos 5.x and Opus 5.5 think always ("disabled … return 400");
//   Opus 5 and Haiku 5.5 think by default and may turn it off at effort high or below; Sonnet 5.5
//   thinks by default and turns it off with `thinking: {type: 'between_tools'}`; Sonnet 5 thinks by
//   default and accepts `disabled`; Opus 4.8 and earlier think only when asked.
// - [display] build-with-claude/thinking#controlling-thinking-display: `omitted` is the default from
//   Opus 4.7 on (Claude 5 included), `summarized` before; `updates` (beta
//   thinking-display-updates-2026-08-18) on the models that write progress updates
//   (#progress-updates: Fable 5.1+, Mythos 5.1+, Opus 5.5, Sonnet 5.5; Fable 5 writes them without
//   the `updates` display).
// - [effort] build-with-claude/effort: levels per model and default (high; medium on Opus 5.5 and
//   Haiku 5.5); xhigh from Opus 4.7; Opus 4.5 low/medium/high; none on Sonnet 4.5 and Haiku 4.5.
// - [tool_choice] models/opus-5-5/whats-new-opus-5-5, models/sonnet-5-5/whats-new-sonnet-5-5,
//   models/fable-5-1/whats-new-fable-5-1: "Forced tool use returns an error" (400 `tool_choice:
//   type "tool" and "any" are not supported for this model.`); Haiku 5.5 accepts it and skips
//   thinking (models/haiku-5-5/migration-guide).
// - [system messages] build-with-claude/mid-conversation-system-messages (Fable 5.x, Mythos 5.x,
//   Opus 5.5, Opus 5, Opus 4.8, Sonnet 5.5, Haiku 5.5; "not available on Claude Sonnet 5"); tool
//   changes (`tool_addition` / `tool_removal`, beta mid-conversation-tool-changes-2026-07-01) on
//   the same models.
// - [strict] agents-and-tools/tool-use/strict-tool-use (structured outputs GA from the Claude 4.5
//   models on).
// - [caching] build-with-claude/prompt-caching, "Cache limitations": 512 tokens on Opus 5, Fable 5,
//   Mythos 5 and the 5.5 models; 1,024 on Opus 4.8, Sonnet 5, Sonnet 4.6 / 4.5; 2,048 on Opus 4.7
//   and Mythos Preview; 4,096 on Opus 4.6 / 4.5 and Haiku 4.5.
// - [tokenizer] build-with-claude/token-counting: "Claude Opus 4.7 and later Opus models, Claude
//   Fable 5, Claude Mythos 5, Claude Mythos Preview, and Claude Sonnet 5 use a newer tokenizer. The
//   same input text produces approximately 30 percent more tokens"; Sonnet 5.5 and Haiku 5.5 share
//   it (their whats-new pages).
// - [pricing] about-claude/pricing and the model pages, USD per MTok: input / 5-minute cache write
//   / 1-hour write / cache read / output. Haiku 5.5 is priced in two bands by the prompt's length
//   (input + cache reads + cache writes): up to 100,000 tokens $0.10 / $0.125 / $0.20 / $0.01 /
//   $0.50, above it $0.50 / $0.625 / $1.00 / $0.05 / $2.50 on every token of that request.
// - [prefill] models/sonnet-5-5/migration-guide ("This model does not support assistant message
//   prefill. The conversation must end with a user message."); not supported from Opus 4.6 on
//   (whats-new-claude-4-6), on Haiku 5.5 and the Claude 5 Opus, Sonnet 5.5 and Fable / Mythos models.
// - [rate limits] api/rate-limits: one table each for Fable 5.x, Opus 5.5, Opus 5, Opus 4.x (4.8,
//   4.7, 4.6, 4.5), Sonnet 5.5, Sonnet 5, Sonnet 4.x (4.6, 4.5), Haiku 5.5, Haiku 4.5.
// Not in the documentation, and assumed (said again beside the entry): Mythos 5.2's price (as Fable
// 5.2's, which Mythos models have always shared), Fable 5.2's cache prices (reported by
// third parties), Mythos' rate-limit class (its own).

import type { Tokenizer } from './estimate-text-tokens.js';

export type ThinkingDisplay = 'summarized' | 'omitted' | 'updates';
export type EffortLevel = 'low' | 'medium' | 'high' | 'xhigh' | 'max';
export const EFFORT_LEVELS: readonly EffortLevel[] = ['low', 'medium', 'high', 'xhigh', 'max'];

/** How a run that does not want thinking says so on this model. */
export type ThinkingOff =
  /** `thinking` omitted or `{type: 'disabled'}`: the model does not think unless asked. */
  | 'omit'
  /** `{type: 'disabled'}`: it thinks by default; disabling is accepted at any effort. */
  | 'disabled'
  /** Not thinking only at effort high or below: `{type: 'disabled'}` on Opus 5 and Haiku 5.5 (they
   * think by default); on Opus 4.8, which thinks only when asked, xhigh or max without thinking is
   * a 400 too. */
  | 'disabled_at_effort_high_or_below'
  /** `{type: 'between_tools'}`: no up-front thinking, progress updates only (Sonnet 5.5). */
  | 'between_tools'
  /** It always thinks (Fable / Mythos 5.x, Opus 5.5). */
  | 'impossible';

export type LifecycleStatus = 'active' | 'legacy' | 'deprecated' | 'retired';

export interface ModelLifecycle {
  status: LifecycleStatus;
  /** Deprecated: the announced retirement date; retired: the date it retired (YYYY-MM-DD). */
  retiresOn: string | null;
  /** The documented replacement (an id this catalog knows and serves), where there is one. */
  successor: string | null;
}

/** USD per million tokens of each usage class. */
export interface ModelPrice {
  input: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  cacheRead: number;
  output: number;
}

/** A price that depends on the prompt's length (Haiku 5.5): `above` applies to every token of a
 * request whose prompt (input + cache reads + cache writes) exceeds `promptTokens`. */
export interface BandedModelPrice extends ModelPrice {
  above?: { promptTokens: number; price: ModelPrice };
}

export interface ModelRecord {
  id: string;
  /** Every other name the API accepts for it. */
  aliases: readonly string[];
  displayName: string;
  lifecycle: ModelLifecycle;
  contextWindowTokens: number;
  maxOutputTokens: number;
  /** Accepts manual thinking, `{type: 'enabled', budget_tokens}`. */
  manualThinking: boolean;
  /** Accepts `{type: 'adaptive'}` (the model decides how much to think; effort sets the depth). */
  adaptiveThinking: boolean;
  /** Thinks when the request has no `thinking` field. */
  thinksByDefault: boolean;
  thinkingOff: ThinkingOff;
  /** The display modes it accepts and its default (null for a model that does not think). */
  thinkingDisplays: readonly ThinkingDisplay[];
  defaultThinkingDisplay: 'summarized' | 'omitted' | null;
  /** Text it writes between tool calls comes back as progress-update thinking blocks. */
  progressUpdates: boolean;
  effortLevels: readonly EffortLevel[];
  defaultEffort: EffortLevel | null;
  /** Accepts tool_choice `any` / `tool` (while it does not think with a manual budget). */
  forcedToolChoice: boolean;
  /** A request may end with an assistant message (a prefill, or a pause_turn continuation sent back
   * as it came); false: 400 "This model does not support assistant message prefill". */
  assistantPrefill: boolean;
  midConversationSystemMessages: boolean;
  midConversationToolChanges: boolean;
  strictTools: boolean;
  /** Shorter prompt prefixes are processed without caching. */
  minimumCacheableTokens: number;
  /** `newer`: the tokenizer of Opus 4.7 and later (~30% more tokens for the same text). */
  tokenizer: Tokenizer;
  /** The limits it shares (api/rate-limits): a 429 on it says nothing of another class. */
  rateLimitClass: string;
  /** Null where no price is published. */
  price: BandedModelPrice | null;
}

const ALL_EFFORTS = EFFORT_LEVELS;
const EFFORTS_TO_MAX: readonly EffortLevel[] = ['low', 'medium', 'high', 'max'];
const EFFORTS_TO_HIGH: readonly EffortLevel[] = ['low', 'medium', 'high'];
const UPDATES_DISPLAYS: readonly ThinkingDisplay[] = ['summarized', 'omitted', 'updates'];
const DISPLAYS: readonly ThinkingDisplay[] = ['summarized', 'omitted'];

const active = (successor: string | null = null): ModelLifecycle => ({ status: 'active', retiresOn: null, successor });
const legacy = (successor: string): ModelLifecycle => ({ status: 'legacy', retiresOn: null, successor });
const deprecated = (retiresOn: string, successor: string): ModelLifecycle => ({ status: 'deprecated', retiresOn, successor });
const retired = (retiresOn: string, successor: string): ModelLifecycle => ({ status: 'retired', retiresOn, successor });

/** The pricing page's cache multipliers of the input price (5-minute write 1.25×, 1-hour 2×, read 0.1×). */
export const CACHE_PRICE_MULTIPLIERS = Object.freeze({ cacheWrite5m: 1.25, cacheWrite1h: 2, cacheRead: 0.1 });

/** Rounded to a millionth of a dollar per MTok, so derived prices (1.25 × $0.80) stay exact. */
export function usdPerMTok(value: number): number {
  return Math.round(value * 1_000_000) / 1_000_000;
}

/** A price whose cache classes follow the standard multipliers of its input price. */
export function standardPrice(input: number, output: number): ModelPrice {
  return {
    input,
    cacheWrite5m: usdPerMTok(input * CACHE_PRICE_MULTIPLIERS.cacheWrite5m),
    cacheWrite1h: usdPerMTok(input * CACHE_PRICE_MULTIPLIERS.cacheWrite1h),
    cacheRead: usdPerMTok(input * CACHE_PRICE_MULTIPLIERS.cacheRead),
    output,
  };
}

const FABLE_5_2_PRICE: ModelPrice = { input: 8, cacheWrite5m: 10, cacheWrite1h: 16, cacheRead: 0.2, output: 40 };
const FABLE_5_1_PRICE: ModelPrice = { ...standardPrice(10, 50), cacheRead: 0.25 };
const OPUS_4_PRICE = standardPrice(5, 25); // Opus 4.5 – 4.8 and Opus 5
const HAIKU_5_5_PRICE: BandedModelPrice = {
  input: 0.1,
  cacheWrite5m: 0.125,
  cacheWrite1h: 0.2,
  cacheRead: 0.01,
  output: 0.5,
  above: { promptTokens: 100_000, price: { input: 0.5, cacheWrite5m: 0.625, cacheWrite1h: 1, cacheRead: 0.05, output: 2.5 } },
};

/** What every Claude 5 model with preserved thinking shares (Fable / Mythos 5.1+, Opus 5.5, Sonnet 5.5). */
const PRESERVED_THINKING_GENERATION = {
  aliases: [],
  contextWindowTokens: 1_000_000,
  maxOutputTokens: 128_000,
  manualThinking: false,
  adaptiveThinking: true,
  thinksByDefault: true,
  thinkingDisplays: UPDATES_DISPLAYS,
  defaultThinkingDisplay: 'omitted',
  progressUpdates: true,
  effortLevels: ALL_EFFORTS,
  defaultEffort: 'high',
  forcedToolChoice: false,
  assistantPrefill: false,
  midConversationSystemMessages: true,
  midConversationToolChanges: true,
  strictTools: true,
  minimumCacheableTokens: 512,
  tokenizer: 'newer',
} as const satisfies Partial<ModelRecord>;

/** Opus 4.7 and later models before Claude 5's preserved thinking: adaptive only, off unless asked. */
const ADAPTIVE_ONLY_OPUS_4 = {
  aliases: [],
  contextWindowTokens: 1_000_000,
  maxOutputTokens: 128_000,
  manualThinking: false,
  adaptiveThinking: true,
  thinksByDefault: false,
  thinkingOff: 'omit',
  thinkingDisplays: DISPLAYS,
  defaultThinkingDisplay: 'omitted',
  progressUpdates: false,
  effortLevels: ALL_EFFORTS,
  defaultEffort: 'high',
  forcedToolChoice: true,
  assistantPrefill: false,
  midConversationToolChanges: false,
  strictTools: true,
  tokenizer: 'newer',
  rateLimitClass: 'claude-opus-4',
  price: OPUS_4_PRICE,
} as const satisfies Partial<ModelRecord>;

/** The Claude 4.5 / 4.6 generation: manual thinking, summarized, the classic tokenizer. */
const CLASSIC_GENERATION = {
  manualThinking: true,
  thinksByDefault: false,
  thinkingOff: 'omit',
  thinkingDisplays: DISPLAYS,
  defaultThinkingDisplay: 'summarized',
  progressUpdates: false,
  forcedToolChoice: true,
  assistantPrefill: true,
  midConversationSystemMessages: false,
  midConversationToolChanges: false,
  strictTools: true,
  tokenizer: 'classic',
} as const satisfies Partial<ModelRecord>;

/** A retired model: requests to it fail; it is kept to name its successor, with the limits it had
 * ([overview] legacy models table: max output 32K on Opus 4.1 / Opus 4, 64K on Sonnet 4 and Sonnet
 * 3.7, 8,192 on Haiku 3.5, 4,096 on Haiku 3; extended thinking on all but the two Haikus; [caching]
 * 2,048-token minimum on Haiku 3.5 and Haiku 3) — the Models API still describes them, and the
 * catalog check compares (src/model/models-api-check.ts). */
function retiredModel({
  id,
  aliases,
  displayName,
  retiredOn,
  successor,
  maxOutputTokens,
  thinks,
}: {
  id: string;
  aliases: readonly string[];
  displayName: string;
  retiredOn: string;
  successor: string;
  maxOutputTokens: number;
  thinks: boolean;
}): ModelRecord {
  return {
    id,
    aliases,
    displayName,
    lifecycle: retired(retiredOn, successor),
    contextWindowTokens: 200_000,
    maxOutputTokens,
    ...CLASSIC_GENERATION,
    manualThinking: thinks,
    ...(thinks ? {} : { thinkingDisplays: [], defaultThinkingDisplay: null }),
    adaptiveThinking: false,
    effortLevels: [],
    defaultEffort: null,
    strictTools: false,
    minimumCacheableTokens: thinks ? 1024 : 2048,
    rateLimitClass: 'retired',
    price: null,
  };
}

const RECORDS: readonly ModelRecord[] = (
  [
    {
      id: 'claude-fable-5-2',
      displayName: 'Claude Fable 5.2',
      lifecycle: active(),
      ...PRESERVED_THINKING_GENERATION,
      thinkingOff: 'impossible',
      rateLimitClass: 'claude-fable-5',
      price: FABLE_5_2_PRICE,
    },
    // Mythos 5.2: no published price; Mythos models have always been priced as their Fable twin.
    {
      id: 'claude-mythos-5-2',
      displayName: 'Claude Mythos 5.2',
      lifecycle: active(),
      ...PRESERVED_THINKING_GENERATION,
      thinkingOff: 'impossible',
      rateLimitClass: 'claude-mythos',
      price: FABLE_5_2_PRICE,
    },
    {
      id: 'claude-fable-5-1',
      displayName: 'Claude Fable 5.1',
      lifecycle: active('claude-fable-5-2'),
      ...PRESERVED_THINKING_GENERATION,
      thinkingOff: 'impossible',
      rateLimitClass: 'claude-fable-5',
      price: FABLE_5_1_PRICE,
    },
    {
      id: 'claude-mythos-5-1',
      displayName: 'Claude Mythos 5.1',
      lifecycle: active('claude-mythos-5-2'),
      ...PRESERVED_THINKING_GENERATION,
      thinkingOff: 'impossible',
      rateLimitClass: 'claude-mythos',
      price: FABLE_5_1_PRICE,
    },
    // Fable 5 / Mythos 5: progress updates without the `updates` display; forced tool use accepted.
    {
      id: 'claude-fable-5',
      displayName: 'Claude Fable 5',
      lifecycle: legacy('claude-fable-5-2'),
      ...PRESERVED_THINKING_GENERATION,
      thinkingOff: 'impossible',
      thinkingDisplays: DISPLAYS,
      forcedToolChoice: true,
      rateLimitClass: 'claude-fable-5',
      price: standardPrice(10, 50),
    },
    {
      id: 'claude-mythos-5',
      displayName: 'Claude Mythos 5',
      lifecycle: active('claude-mythos-5-2'),
      ...PRESERVED_THINKING_GENERATION,
      thinkingOff: 'impossible',
      thinkingDisplays: DISPLAYS,
      forcedToolChoice: true,
      rateLimitClass: 'claude-mythos',
      price: standardPrice(10, 50),
    },
    {
      id: 'claude-mythos-preview',
      aliases: [],
      displayName: 'Claude Mythos Preview',
      lifecycle: deprecated('2026-06-30', 'claude-mythos-5'),
      contextWindowTokens: 1_000_000,
      maxOutputTokens: 128_000,
      manualThinking: true,
      adaptiveThinking: true,
      thinksByDefault: true,
      thinkingOff: 'impossible',
      thinkingDisplays: DISPLAYS,
      defaultThinkingDisplay: 'omitted',
      progressUpdates: false,
      effortLevels: EFFORTS_TO_MAX,
      defaultEffort: 'high',
      forcedToolChoice: true,
      assistantPrefill: true,
      midConversationSystemMessages: false,
      midConversationToolChanges: false,
      strictTools: true,
      minimumCacheableTokens: 2048,
      tokenizer: 'newer',
      rateLimitClass: 'claude-mythos',
      price: null,
    },
    {
      id: 'claude-opus-5-5',
      displayName: 'Claude Opus 5.5',
      lifecycle: active(),
      ...PRESERVED_THINKING_GENERATION,
      thinkingOff: 'impossible',
      defaultEffort: 'medium',
      rateLimitClass: 'claude-opus-5-5',
      price: { input: 4, cacheWrite5m: 5, cacheWrite1h: 8, cacheRead: 0.2, output: 20 },
    },
    {
      id: 'claude-opus-5',
      displayName: 'Claude Opus 5',
      lifecycle: legacy('claude-opus-5-5'),
      ...PRESERVED_THINKING_GENERATION,
      thinkingOff: 'disabled_at_effort_high_or_below',
      thinkingDisplays: DISPLAYS,
      progressUpdates: false,
      forcedToolChoice: true,
      rateLimitClass: 'claude-opus-5',
      price: OPUS_4_PRICE,
    },
    // Sonnet 5.5's cache read: $0.20 on its model page (third parties report $0.10 since 2026-10-07;
    // BUILDFLEET_MODEL_PRICES corrects it if your invoice says so).
    {
      id: 'claude-sonnet-5-5',
      displayName: 'Claude Sonnet 5.5',
      lifecycle: active(),
      ...PRESERVED_THINKING_GENERATION,
      thinkingOff: 'between_tools',
      rateLimitClass: 'claude-sonnet-5-5',
      price: standardPrice(2, 10),
    },
    {
      id: 'claude-sonnet-5',
      displayName: 'Claude Sonnet 5',
      lifecycle: legacy('claude-sonnet-5-5'),
      ...PRESERVED_THINKING_GENERATION,
      thinkingOff: 'disabled',
      thinkingDisplays: DISPLAYS,
      progressUpdates: false,
      forcedToolChoice: true,
      assistantPrefill: true,
      midConversationSystemMessages: false,
      midConversationToolChanges: false,
      minimumCacheableTokens: 1024,
      rateLimitClass: 'claude-sonnet-5',
      price: standardPrice(2, 10),
    },
    {
      id: 'claude-haiku-5-5',
      displayName: 'Claude Haiku 5.5',
      lifecycle: active(),
      ...PRESERVED_THINKING_GENERATION,
      thinkingOff: 'disabled_at_effort_high_or_below',
      thinkingDisplays: DISPLAYS,
      progressUpdates: false,
      defaultEffort: 'medium',
      // Accepted, and the answer then has no thinking block (models/haiku-5-5/migration-guide).
      forcedToolChoice: true,
      rateLimitClass: 'claude-haiku-5-5',
      price: HAIKU_5_5_PRICE,
    },
    // Opus 4.8 thinks only when asked, and without thinking takes effort high or below: xhigh / max
    // with thinking off is a 400 (the API's answer as reported; whats-new-opus-5 on Opus 4.8 code).
    {
      id: 'claude-opus-4-8',
      displayName: 'Claude Opus 4.8',
      lifecycle: legacy('claude-opus-5-5'),
      ...ADAPTIVE_ONLY_OPUS_4,
      thinkingOff: 'disabled_at_effort_high_or_below',
      midConversationSystemMessages: true,
      midConversationToolChanges: true,
      minimumCacheableTokens: 1024,
    },
    {
      id: 'claude-opus-4-7',
      displayName: 'Claude Opus 4.7',
      lifecycle: legacy('claude-opus-5-5'),
      ...ADAPTIVE_ONLY_OPUS_4,
      midConversationSystemMessages: false,
      minimumCacheableTokens: 2048,
    },
    {
      id: 'claude-opus-4-6',
      aliases: [],
      displayName: 'Claude Opus 4.6',
      lifecycle: legacy('claude-opus-5-5'),
      contextWindowTokens: 1_000_000,
      maxOutputTokens: 128_000,
      ...CLASSIC_GENERATION,
      assistantPrefill: false,
      adaptiveThinking: true,
      effortLevels: EFFORTS_TO_MAX,
      defaultEffort: 'high',
      minimumCacheableTokens: 4096,
      rateLimitClass: 'claude-opus-4',
      price: OPUS_4_PRICE,
    },
    {
      id: 'claude-sonnet-4-6',
      aliases: [],
      displayName: 'Claude Sonnet 4.6',
      lifecycle: legacy('claude-sonnet-5-5'),
      contextWindowTokens: 1_000_000,
      maxOutputTokens: 128_000,
      ...CLASSIC_GENERATION,
      adaptiveThinking: true,
      effortLevels: EFFORTS_TO_MAX,
      defaultEffort: 'high',
      minimumCacheableTokens: 1024,
      rateLimitClass: 'claude-sonnet-4',
      price: standardPrice(3, 15),
    },
    {
      id: 'claude-opus-4-5-20251101',
      aliases: ['claude-opus-4-5'],
      displayName: 'Claude Opus 4.5',
      lifecycle: legacy('claude-opus-5-5'),
      contextWindowTokens: 200_000,
      maxOutputTokens: 64_000,
      ...CLASSIC_GENERATION,
      adaptiveThinking: false,
      effortLevels: EFFORTS_TO_HIGH,
      defaultEffort: 'high',
      minimumCacheableTokens: 4096,
      rateLimitClass: 'claude-opus-4',
      price: OPUS_4_PRICE,
    },
    {
      id: 'claude-sonnet-4-5-20250929',
      aliases: ['claude-sonnet-4-5'],
      displayName: 'Claude Sonnet 4.5',
      lifecycle: deprecated('2026-11-30', 'claude-sonnet-5-5'),
      contextWindowTokens: 200_000,
      maxOutputTokens: 64_000,
      ...CLASSIC_GENERATION,
      adaptiveThinking: false,
      effortLevels: [],
      defaultEffort: null,
      minimumCacheableTokens: 1024,
      rateLimitClass: 'claude-sonnet-4',
      price: standardPrice(3, 15),
    },
    {
      id: 'claude-haiku-4-5-20251001',
      aliases: ['claude-haiku-4-5'],
      displayName: 'Claude Haiku 4.5',
      lifecycle: legacy('claude-haiku-5-5'),
      contextWindowTokens: 200_000,
      maxOutputTokens: 64_000,
      ...CLASSIC_GENERATION,
      adaptiveThinking: false,
      effortLevels: [],
      defaultEffort: null,
      minimumCacheableTokens: 4096,
      rateLimitClass: 'claude-haiku-4',
      price: standardPrice(1, 5),
    },
    retiredModel({
      id: 'claude-opus-4-1-20250805',
      aliases: ['claude-opus-4-1'],
      displayName: 'Claude Opus 4.1',
      retiredOn: '2026-08-05',
      successor: 'claude-opus-4-8',
      maxOutputTokens: 32_000,
      thinks: true,
    }),
    retiredModel({
      id: 'claude-opus-4-20250514',
      aliases: ['claude-opus-4-0'],
      displayName: 'Claude Opus 4',
      retiredOn: '2026-06-15',
      successor: 'claude-opus-4-8',
      maxOutputTokens: 32_000,
      thinks: true,
    }),
    retiredModel({
      id: 'claude-sonnet-4-20250514',
      aliases: ['claude-sonnet-4-0'],
      displayName: 'Claude Sonnet 4',
      retiredOn: '2026-06-15',
      successor: 'claude-sonnet-4-6',
      maxOutputTokens: 64_000,
      thinks: true,
    }),
    retiredModel({
      id: 'claude-3-7-sonnet-20250219',
      aliases: ['claude-3-7-sonnet-latest'],
      displayName: 'Claude Sonnet 3.7',
      retiredOn: '2026-02-19',
      successor: 'claude-sonnet-5-5',
      maxOutputTokens: 64_000,
      thinks: true,
    }),
    retiredModel({
      id: 'claude-3-5-haiku-20241022',
      aliases: ['claude-3-5-haiku-latest'],
      displayName: 'Claude Haiku 3.5',
      retiredOn: '2026-02-19',
      successor: 'claude-haiku-4-5-20251001',
      maxOutputTokens: 8192,
      thinks: false,
    }),
    retiredModel({
      id: 'claude-3-haiku-20240307',
      aliases: [],
      displayName: 'Claude Haiku 3',
      retiredOn: '2026-04-20',
      successor: 'claude-haiku-4-5-20251001',
      maxOutputTokens: 4096,
      thinks: false,
    }),
  ] satisfies ModelRecord[]
).map((record) => Object.freeze(record));

const BY_NAME: ReadonlyMap<string, ModelRecord> = new Map(RECORDS.flatMap((record) => [record.id, ...record.aliases].map((name) => [name, record] as const)));

/** The fleet's default model when BUILDFLEET_MODEL is unset: the current Sonnet. */
export const DEFAULT_MODEL = 'claude-sonnet-5-5';

/** Every record, newest first, retired ones included. */
export const MODEL_RECORDS: readonly ModelRecord[] = RECORDS;

/** The record an id or alias names, or undefined when the catalog does not know it. */
export function catalogRecord(model: string): ModelRecord | undefined {
  return BY_NAME.get(model);
}

/** Every id and alias the catalog knows. */
export function catalogNames(): string[] {
  return [...BY_NAME.keys()];
}
