// The fleet's shared model-call limiter: one set of token buckets in Redis per (provider, its API
// key identity, model) — requests, input tokens and output tokens per minute — that every model worker reserves
// from right before a call and settles after it, so the fleet waits for capacity instead of
// collecting 429s. Seeded from configuration, corrected from the anthropic-ratelimit-* headers of
// every answer, honouring run priority. The rules are in the Lua (model-rate-limiter-scripts.ts)
// and docs/admission.md; this module is their typed face.
import { createHash } from 'node:crypto';
import type { RedisClient } from '../redis/redis-connection.js';
import { z } from 'zod';
import { defineLuaCommands } from '../redis/define-lua-commands.js';
import type { RunPriority } from '../domain/run-priority.js';
import type { ModelCallFailure } from './classify-model-error.js';
import { readRateLimitHeaders, type RateLimitHeaders } from './rate-limit-headers.js';
import { RESERVE_LUA, SETTLE_LUA } from './model-rate-limiter-scripts.js';
import { estimatePromptTokens } from './estimate-prompt-tokens.js';
import type { Tokenizer } from '../domain/estimate-text-tokens.js';

/** The limits a limiter starts from, per minute; 0 = unknown (not enforced until an answer's
 * headers say it). */
export interface AdmissionLimits {
  requestsPerMinute: number;
  inputTokensPerMinute: number;
  outputTokensPerMinute: number;
}

export interface ModelRateLimiterSettings {
  limits: AdmissionLimits;
  /** Share of each bucket's capacity a batch call must leave free (0..1). */
  batchHeadroom: number;
  /** How long an admitted reservation lives unsettled: longer than the slowest call. */
  reservationTtlMs: number;
  /** How long a booked slot waits for its call to come back before it is given back. */
  bookingGraceMs: number;
  /** Tests only: the limiter's clock (ms). Default: Redis's own (TIME), one clock for every process. */
  clock?: () => number;
}

/** Which bucket a wait is for; `booked` = a slot this call booked earlier has not come yet. */
export type AdmissionLimit = 'requests' | 'input_tokens' | 'output_tokens' | 'booked';

export interface AdmissionAmounts {
  requests: number;
  inputTokens: number;
  outputTokens: number;
}

/** Whose limits a call counts against: the provider it goes through (its configured name) and that
 * provider's identity (limiterIdentity of its key or endpoint). Two providers serving the same
 * model id have limits of their own, each learnt from its own answers. */
export interface AdmissionProvider {
  name: string;
  identity: string;
}

export interface AdmissionReservation extends AdmissionAmounts {
  provider: AdmissionProvider;
  model: string;
  callId: string;
  /** The run the call belongs to: its calls share a cached prompt prefix. */
  chainId: string;
  priority: RunPriority;
  /** The whole prompt's estimate (inputTokens may be less: the part beyond the cached prefix). */
  promptTokens: number;
  cache: AdmissionCacheHint | null;
}

/** What a call's prompt shares with earlier calls in the prompt cache (admissionCacheHint). */
export interface AdmissionCacheHint {
  /** Everything its cached prefix depends on: tools, system, tool_choice, thinking. */
  scope: string;
  /** Its shared prefix alone (tools and system, alike for every run of a phase)… */
  prefixScope: string;
  /** … and that prefix's estimate, in the units of the prompt's (estimate-prompt-tokens.ts). */
  prefixTokens: number;
}

export interface AdmissionBucket {
  /** Capacity per minute; 0 = unknown, not enforced. */
  capacity: number;
  /** What is available now; below zero while booked calls are owed capacity. */
  available: number;
  /** Where the capacity comes from: the configured seed, or the API's headers. */
  source: 'seed' | 'api';
}

export type AdmissionBuckets = Record<'requests' | 'inputTokens' | 'outputTokens', AdmissionBucket>;

export type AdmissionDecision =
  | { kind: 'go'; reservation: AdmissionReservation; buckets: AdmissionBuckets }
  | { kind: 'wait'; waitMs: number; limit: AdmissionLimit; booked: boolean; buckets: AdmissionBuckets };

export interface AdmissionSettlement {
  /** 'open': the reservation was settled; 'expired': it had expired first (its worker was too slow
   * or died) and the usage was booked against the expiry's guess instead. */
  settled: 'open' | 'expired';
  /** Buckets the answer's headers lowered. */
  corrected: number;
  /** What went back to the buckets (reserved minus counted; negative when the call used more). */
  returned: AdmissionAmounts;
  buckets: AdmissionBuckets;
}

/** What a limiter reports, for metrics (src/fleet/fleet-metrics.ts). */
export type AdmissionObservation =
  | { kind: 'reserve'; provider: string; model: string; priority: RunPriority; decision: AdmissionDecision }
  | { kind: 'settle'; provider: string; model: string; priority: RunPriority; settlement: AdmissionSettlement };

/** A call's usage, as stored by class (src/domain/usage.ts) or as the API names it. */
export interface CountedUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number | null;
  cache_write_5m_input_tokens?: number;
  cache_write_1h_input_tokens?: number;
  cache_creation_input_tokens?: number | null;
}

/** Input that counts toward the input-tokens-per-minute limit: uncached input plus cache writes. */
function countedInput(usage: CountedUsage): number {
  const writes =
    usage.cache_write_5m_input_tokens !== undefined || usage.cache_write_1h_input_tokens !== undefined
      ? (usage.cache_write_5m_input_tokens ?? 0) + (usage.cache_write_1h_input_tokens ?? 0)
      : (usage.cache_creation_input_tokens ?? 0);
  return usage.input_tokens + writes;
}

/** The default prompt cache lifetime (docs build-with-claude/prompt-caching: "The cache has a
 * minimum 5-minute lifetime", refreshed by each use): a run's next call within it expects a hit. */
const PROMPT_CACHE_LIFETIME_MS = 300_000;

const shortHash = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);

/**
 * What a call's prompt is expected to find in the prompt cache, for the limiter to reserve only
 * the rest (cache reads do not count toward the input limit). The prefix is tools, then system,
 * then messages (docs build-with-claude/prompt-caching, "Cache prefix"); the messages' part also
 * depends on tool_choice and thinking ("What invalidates the cache": changing either invalidates
 * the message blocks, not tools or system). Two consecutive calls of a run with the same `scope`
 * share their prefix up to the earlier call's end; any two calls with the same `prefixScope` share
 * tools and system.
 */
export function admissionCacheHint(parts: {
  system: unknown;
  tools: unknown;
  toolNames: readonly string[];
  toolChoice: unknown;
  thinking: unknown;
  /** The model's tokenizer and calibrated ratio, as the whole prompt's estimate takes them. */
  tokenizer: Tokenizer;
  measuredRatio: number | null;
}): AdmissionCacheHint {
  const prefixScope = shortHash([parts.system, parts.toolNames]);
  return {
    scope: shortHash([prefixScope, parts.toolChoice, parts.thinking ?? null]),
    prefixScope,
    prefixTokens: estimatePromptTokens({
      system: parts.system,
      tools: parts.tools,
      messages: [],
      tokenizer: parts.tokenizer,
      measuredRatio: parts.measuredRatio,
    }),
  };
}

/** The least a call expected to read its run's cached prefix reserves: its new part is at least
 * a message, and an estimate that shrank must not admit a call for nothing. */
const CACHED_CALL_FLOOR_TOKENS = 64;

/** The longest a booked call stays away before it looks again whether give-backs repaid its slot
 * early (half its remaining wait when that is longer). */
const BOOKING_RECHECK_MS = 1000;

/** A limiter's identity: a hash of the API key, or of the base URL when there is none (the
 * simulator, a keyless proxy). Limits are the key's (the organization's, docs api/rate-limits);
 * the key itself never reaches Redis. */
export function limiterIdentity({ apiKey, baseUrl }: { apiKey?: string | undefined; baseUrl?: string | undefined }): string {
  const [kind, value] = apiKey ? ['key', apiKey] : ['url', baseUrl ?? 'default'];
  return `${kind}-${createHash('sha256').update(value).digest('hex').slice(0, 16)}`;
}

const LIMIT_OF = { r: 'requests', i: 'input_tokens', o: 'output_tokens', booked: 'booked' } as const;

const bucketSchema = z.object({ cap: z.number(), level: z.number(), src: z.enum(['seed', 'api']) });
const amountsSchema = z.object({ r: z.number(), i: z.number(), o: z.number() });
const bucketsSchema = z.object({ r: bucketSchema, i: bucketSchema, o: bucketSchema });
const reserveReplySchema = z.object({
  go: z.boolean(),
  waitMs: z.number(),
  // cjson encodes an empty Lua string as "".
  limit: z.enum(['', 'r', 'i', 'o', 'booked']),
  booked: z.boolean(),
  swept: z.number(),
  reserved: amountsSchema,
  buckets: bucketsSchema,
});
const settleReplySchema = z.object({ settled: z.enum(['open', 'expired']), corrected: z.number(), swept: z.number(), buckets: bucketsSchema });

interface AdmissionCommands {
  bfAdmissionReserve(...arguments_: Array<string | number>): Promise<string>;
  bfAdmissionSettle(...arguments_: Array<string | number>): Promise<string>;
}

/** Keys of an idle limiter expire after a day (at least twice the longest reservation). */
const KEY_LIFETIME_FLOOR_MS = 86_400_000;

function toBuckets(raw: z.infer<typeof bucketsSchema>): AdmissionBuckets {
  const bucket = (entry: z.infer<typeof bucketSchema>): AdmissionBucket => ({ capacity: entry.cap, available: entry.level, source: entry.src });
  return { requests: bucket(raw.r), inputTokens: bucket(raw.i), outputTokens: bucket(raw.o) };
}

function decode<T>(schema: z.ZodType<T>, reply: string, script: string): T {
  const parsed = schema.safeParse(JSON.parse(reply));
  if (!parsed.success) throw new Error(`${script} answered what the limiter cannot read: ${parsed.error.message}`);
  return parsed.data;
}

/** Model ids go into a key's hash tag, where `{`, `}` or spaces would break it. */
function keySafe(model: string): string {
  return model.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** The hash tag of one provider's buckets for one model: `admission:<provider>:<identity>:<model>`
 * (model ids lose their `:` to keySafe). */
export function admissionBucketTag(provider: AdmissionProvider, model: string): string {
  return `admission:${provider.name}:${provider.identity}:${keySafe(model)}`;
}

export class ModelRateLimiter {
  private readonly commands: AdmissionCommands;
  private readonly keyLifetimeMs: number;

  constructor(
    redis: RedisClient,
    private readonly prefix: string,
    private readonly settings: ModelRateLimiterSettings,
    private readonly observe?: (observation: AdmissionObservation) => void,
  ) {
    this.keyLifetimeMs = Math.max(KEY_LIFETIME_FLOOR_MS, 2 * (settings.reservationTtlMs + settings.bookingGraceMs));
    this.commands = defineLuaCommands<AdmissionCommands>(redis, {
      bfAdmissionReserve: { numberOfKeys: 5, lua: RESERVE_LUA },
      bfAdmissionSettle: { numberOfKeys: 5, lua: SETTLE_LUA },
    });
  }

  /** The keys of one provider's limiter for one model, of a run's cache chain and of a shared
   * prefix in it, under one hash tag. */
  keys(provider: AdmissionProvider, model: string, chainId: string, prefixScope?: string): [string, string, string, string, string] {
    const base = `${this.prefix}:{${admissionBucketTag(provider, model)}}`;
    return [`${base}:buckets`, `${base}:reservations`, `${base}:expiry`, `${base}:chain:${keySafe(chainId)}`, `${base}:prefix:${prefixScope ?? 'none'}`];
  }

  private now(): number {
    return this.settings.clock ? Math.floor(this.settings.clock()) : -1;
  }

  private seeds(): number[] {
    const { limits } = this.settings;
    return [limits.requestsPerMinute, limits.inputTokensPerMinute, limits.outputTokensPerMinute];
  }

  /**
   * Right before a call: `go` with the reservation to settle afterwards, or `wait` so many ms.
   * `callId` names the call across retries of its job (run and turn): a booked wait is claimed by
   * the same id when the job comes back. `inputTokens` is the whole prompt's estimate; with a
   * `cache` hint (admissionCacheHint), what the prompt cache is expected to hold — the run's
   * previous call, else the tools and system of its phase — is not reserved.
   */
  async reserve(request: {
    provider: AdmissionProvider;
    model: string;
    callId: string;
    chainId: string;
    priority: RunPriority;
    inputTokens: number;
    outputTokens: number;
    cache?: AdmissionCacheHint | null;
  }): Promise<AdmissionDecision> {
    const promptTokens = Math.max(0, Math.ceil(request.inputTokens));
    const need = [1, promptTokens, Math.max(0, Math.ceil(request.outputTokens))];
    const reply = await this.commands.bfAdmissionReserve(
      ...this.keys(request.provider, request.model, request.chainId, request.cache?.prefixScope),
      this.now(),
      request.callId,
      request.priority,
      ...need,
      ...this.seeds(),
      this.settings.batchHeadroom,
      this.settings.reservationTtlMs,
      this.settings.bookingGraceMs,
      this.keyLifetimeMs,
      request.cache?.scope ?? '',
      CACHED_CALL_FLOOR_TOKENS,
      request.cache?.prefixTokens ?? 0,
      BOOKING_RECHECK_MS,
    );
    const parsed = decode(reserveReplySchema, reply, 'bfAdmissionReserve');
    const buckets = toBuckets(parsed.buckets);
    const decision: AdmissionDecision = parsed.go
      ? {
          kind: 'go',
          reservation: {
            provider: request.provider,
            model: request.model,
            callId: request.callId,
            chainId: request.chainId,
            priority: request.priority,
            promptTokens,
            cache: request.cache ?? null,
            requests: parsed.reserved.r,
            inputTokens: parsed.reserved.i,
            outputTokens: parsed.reserved.o,
          },
          buckets,
        }
      : {
          kind: 'wait',
          waitMs: Math.max(1, Math.ceil(parsed.waitMs)),
          limit: parsed.limit === '' ? 'booked' : LIMIT_OF[parsed.limit],
          booked: parsed.booked,
          buckets,
        };
    this.observe?.({ kind: 'reserve', provider: request.provider.name, model: request.model, priority: request.priority, decision });
    return decision;
  }

  /**
   * After the call: gives back what was reserved beyond what the API counted and corrects the
   * buckets from the answer's rate-limit headers. `headersAgeMs`: how long ago the API wrote them;
   * `outputReturnedByApi`: output tokens the API itself gave back after writing them.
   */
  async settle(
    reservation: AdmissionReservation,
    outcome: {
      counted: AdmissionAmounts;
      headers?: RateLimitHeaders | null;
      headersAgeMs?: number;
      outputReturnedByApi?: number;
      /** Whether the call left its prompt in the cache for the run's next call (unknown: unchanged). */
      cached?: boolean;
      /** Whether the answer read from the cache: its shared prefix is there. */
      readFromCache?: boolean;
    },
  ): Promise<AdmissionSettlement> {
    const header = (value: { limit: number | null; remaining: number | null } | undefined) => [value?.limit ?? -1, value?.remaining ?? -1];
    const counted = outcome.counted;
    const reply = await this.commands.bfAdmissionSettle(
      ...this.keys(reservation.provider, reservation.model, reservation.chainId, reservation.cache?.prefixScope),
      this.now(),
      reservation.callId,
      reservation.requests,
      reservation.inputTokens,
      reservation.outputTokens,
      counted.requests,
      Math.max(0, Math.ceil(counted.inputTokens)),
      Math.max(0, Math.ceil(counted.outputTokens)),
      ...this.seeds(),
      ...header(outcome.headers?.requests),
      ...header(outcome.headers?.inputTokens),
      ...header(outcome.headers?.outputTokens),
      Math.max(0, Math.round(outcome.headersAgeMs ?? 0)),
      Math.max(0, Math.round(outcome.outputReturnedByApi ?? 0)),
      this.keyLifetimeMs,
      outcome.cached === undefined ? '-' : outcome.cached && reservation.cache ? `${reservation.promptTokens}|${reservation.cache.scope}` : '',
      PROMPT_CACHE_LIFETIME_MS,
      outcome.readFromCache && reservation.cache ? 1 : 0,
    );
    const parsed = decode(settleReplySchema, reply, 'bfAdmissionSettle');
    const settlement: AdmissionSettlement = {
      settled: parsed.settled,
      corrected: parsed.corrected,
      returned: {
        requests: reservation.requests - counted.requests,
        inputTokens: reservation.inputTokens - counted.inputTokens,
        outputTokens: reservation.outputTokens - counted.outputTokens,
      },
      buckets: toBuckets(parsed.buckets),
    };
    this.observe?.({ kind: 'settle', provider: reservation.provider.name, model: reservation.model, priority: reservation.priority, settlement });
    return settlement;
  }

  /** A call that answered: its usage as the API counts it toward the limits — uncached input plus
   * cache writes; cache reads do not count (docs api/rate-limits: "cache_read_input_tokens are
   * not", except on a few older models, which the headers then correct) — and its headers,
   * written when the API admitted it with max_tokens as its output estimate. */
  settleAnswer(
    reservation: AdmissionReservation,
    answer: { usage: CountedUsage; headers: Headers | null; headersReceivedAt: number | null; now?: number },
  ): Promise<AdmissionSettlement> {
    const now = answer.now ?? Date.now();
    const output = answer.usage.output_tokens;
    const cacheActivity = countedInput(answer.usage) - answer.usage.input_tokens + (answer.usage.cache_read_input_tokens ?? 0);
    return this.settle(reservation, {
      cached: cacheActivity > 0,
      readFromCache: (answer.usage.cache_read_input_tokens ?? 0) > 0,
      counted: { requests: 1, inputTokens: countedInput(answer.usage), outputTokens: output },
      headers: readRateLimitHeaders(answer.headers),
      headersAgeMs: answer.headersReceivedAt === null ? 0 : now - answer.headersReceivedAt,
      outputReturnedByApi: Math.max(0, reservation.outputTokens - output),
    });
  }

  /**
   * A call that failed. An HTTP error answer (4xx, 429 included) was refused before the model ran:
   * nothing was counted, and its headers show the buckets as the API has them. Anything else — a
   * 5xx, an error event inside the stream, a dropped connection — may have run: its reservation
   * stays spent (the refill gives it back within the minute).
   */
  settleFailure(reservation: AdmissionReservation, failure: ModelCallFailure): Promise<AdmissionSettlement> {
    const refused = failure.status !== undefined && failure.status >= 400 && failure.status < 500;
    if (!refused) return this.settle(reservation, { counted: reservation });
    return this.settle(reservation, { counted: { requests: 0, inputTokens: 0, outputTokens: 0 }, headers: readRateLimitHeaders(failure.headers) });
  }

  /** The call was never sent (the fleet-wide pause was in force): everything goes back. */
  release(reservation: AdmissionReservation): Promise<AdmissionSettlement> {
    return this.settle(reservation, { counted: { requests: 0, inputTokens: 0, outputTokens: 0 } });
  }
}
