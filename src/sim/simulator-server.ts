// The model simulator: an HTTP server speaking the Anthropic Messages API (JSON and streamed) so the
// real SDK talks to it over real HTTP. It validates requests like the real API, answers as a
// deterministic website builder, and can be scripted with scenarios (header
// `x-buildfleet-scenario`) and infrastructure faults (FaultController, `/_sim/faults`, header
// `x-buildfleet-fault`). Admin endpoints:
//   GET /healthz                 200 {status: 'ok'}
//   POST /_sim/faults            queue faults (one, an array, or {faults: [...]}) → {queued, pending}
//   GET /_sim/faults             the queued faults
//   DELETE /_sim/faults          clear them → {cleared}
//   GET /_sim/requests           summaries of the recorded requests
//   DELETE /_sim/requests        clear the record → {cleared}
//   GET /_sim/rate-limits        the limits in effect → {limits}
//   PUT /_sim/rate-limits        change some of them ({requestsPerMinute?, inputTokensPerMinute?,
//                                outputTokensPerMinute?}) → {limits}; opens or ends a rate-limit episode
//   DELETE /_sim/rate-limits     refill every bucket → {reset}
//   DELETE /_sim/prompt-cache    drop every cached prefix → {cleared}
// Besides POST /v1/messages: GET /v1/models[/{id}] (answer-models-request.ts) and
// POST /v1/messages/count_tokens (answer-count-tokens.ts).
// Claude on Bedrock and Vertex AI (cloud-routes/): POST /model/{id}/invoke[-with-response-stream]
// and POST /v1/projects/{p}/locations/{r}/publishers/anthropic/models/{m}:[stream]rawPredict.
// OpenAI-compatible chat completions (chat-completions/): POST /v1/chat/completions.
import { setMaxListeners } from 'node:events';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ZodError } from 'zod';
import { admitRequest } from './admit-request.js';
import { checkApiHeaders } from './check-api-headers.js';
import { answerCountTokens, COUNT_TOKENS_PATH } from './answer-count-tokens.js';
import { answerModelsRequest, isModelsPath } from './answer-models-request.js';
import { createApiErrorBody, errorTypeForStatus, type ApiErrorType } from './api-error.js';
import { createAssistantMessage, type AssistantMessageBody, type RenderedMessage } from './assistant-message.js';
import { hashTranscript } from './deterministic-random.js';
import { streamErrorAnswer, streamErrorPlanOf } from './stream-error-fault.js';
import { streamMessage, type StreamErrorPlan } from './stream-message.js';
import type { StreamStallPlan } from './paced-stream.js';
import { ThinkingSigner } from './thinking-signature.js';
import { drawAnswerTiming, generationTimeMs, TIMING_PROFILES, type AnswerTiming, type TimingProfileName } from './timing-profile.js';
import type { SiteSize } from './site-plan.js';
import { verifyThinkingBlocks } from './verify-thinking-blocks.js';
import { answerCloudRequest, cloudStreamResponse, matchCloudRoute } from './cloud-routes/answer-cloud-request.js';
import { FaultController } from './fault-controller.js';
import { lookupModel, type ModelDescription } from './model-catalog.js';
import { PromptCache } from './prompt-cache.js';
import { RateLimiter, type RateLimits } from './rate-limiter.js';
import { rateLimitsSchema } from './rate-limits-schema.js';
import { parseFaultHeader } from './fault-header.js';
import { faultAnswer } from './fault-response.js';
import type { FaultKind, FaultSpec } from './fault-spec.js';
import { createIdentifier } from './identifiers.js';
import { parseMessagesRequest } from './parse-messages-request.js';
import { CHAT_COMPLETIONS_PATH, handleChatCompletions, type ChatCompletionsContext } from './chat-completions/handle-chat-completions.js';
import { requestEndpoint } from './request-endpoint.js';
import { parseBetaHeader } from './parse-beta-header.js';
import { respondToMessages } from './respond-to-messages.js';
import type { ConversationScript } from './conversation-script.js';
import { answerFromScript } from './scripted-turn.js';
import type { SimulatorPolicy } from './schema-policy.js';
import { isScenarioName, SCENARIO_NAMES, type ScenarioName } from '../domain/scenario-names.js';
import {
  DEFAULT_TEXT_CALL_PROBABILITY,
  TEXT_CALL_MODES,
  parseTextFormatHeader,
  HEADER_TEXT_FORMAT,
  type TextCallMode,
  type TextCallProbabilityTable,
} from './text-call-decision.js';

export type { TextCallProbabilityTable } from './text-call-decision.js';
export { FaultController } from './fault-controller.js';
export type { FaultSpec, FaultKind } from './fault-spec.js';
export { SCENARIO_NAMES, type ScenarioName } from '../domain/scenario-names.js';

export interface SimulatorOptions {
  /** 0 or absent: any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Added to every /v1/messages answer, uniform in [min, max] ms. */
  latencyMs?: { min: number; max: number };
  /** Probability of writing a tool call as text, by tool count (header `x-buildfleet-text-calls: on`, the default). */
  textCallProbability?: TextCallProbabilityTable;
  /** Seeds every deterministic choice; default 1. */
  seed?: number;
  /** How many of the most recent requests `requests` keeps; default 1000. */
  maxRecordedRequests?: number;
  /** Generation timing and output sizes (timing-profile.ts); default `instant`. */
  profile?: TimingProfileName;
  /** Overrides the profile's time to first token, ms. */
  ttftMs?: number;
  /** Overrides the profile's output rate; Infinity: no time per token. */
  tokensPerSecond?: number;
  /** Overrides the profile's site size: `realistic` writes pages of thousands of tokens. */
  siteSize?: SiteSize;
  /** Secret for thinking-block signatures; default random per simulator (thinking-signature.ts). */
  thinkingSecret?: string;
  /** Per-minute limits of every API key and model class (rate-limiter.ts); default generous. */
  rateLimits?: Partial<RateLimits>;
  /** The time source of prompt-cache lifetimes, rate-limit buckets and overload episodes; default Date.now. */
  clock?: () => number;
  /** Tests only: models the Models API lists and describes besides the catalog's (a model released
   * after the fleet's catalog was written, one the provider has since retired). The Messages API
   * does not serve them: the catalog stays the simulator's one source of model behaviour. */
  extraModels?: readonly ModelDescription[];
  /** Answer every Messages request from this scripted conversation instead of the builder policy
   * (conversation-script.ts; `buildfleet sim --script FILE`). */
  script?: ConversationScript;
  /** Which policy decides each turn when no script is given: `builder` (default) or `schema`, which
   * calls whatever tools are offered with inputs from their schemas (schema-policy.ts). */
  policy?: SimulatorPolicy;
  /** The schema policy's share (0–1) of calls of non-strict tools made with an invalid input; default 0. */
  invalidInputShare?: number;
}

export interface RecordedRequest {
  timestampMs: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body, the raw text when it was not JSON, or null when empty. */
  body: unknown;
  /** HTTP status answered; 0 while pending or when the connection was reset without an answer. */
  status: number;
  requestId: string | null;
  durationMs: number | null;
  fault: FaultKind | null;
  scenario: string | null;
  stopReason: string | null;
  /** What shaped a 200 answer: `policy`, `text-tool-call` or the scenario's name. */
  source: string | null;
  /** The request asked for a streamed answer (`stream: true`). */
  streamed: boolean;
  /** The client closed the connection before a 200 answer was complete (a call it abandoned,
   * which the real API bills for what was generated). */
  abandoned: boolean;
  /** SHA-256 of the body without `stream`: equal hashes are the same conversation sent again. */
  conversationHash: string | null;
  /** The usage of a 200 answer, as the response reports it. */
  usage: AssistantMessageBody['usage'] | null;
  /** How many `cache_control` breakpoints a valid Messages body carried (the top-level one
   * included); null until the body is validated. */
  cacheBreakpoints: number | null;
}

export interface RunningSimulator {
  url: string;
  port: number;
  close(): Promise<void>;
  faults: FaultController;
  requests: RecordedRequest[];
  rateLimits: RateLimiter;
  promptCache: PromptCache;
}

const DEFAULT_HOST = '127.0.0.1';
const DEFAULT_SEED = 1;
const DEFAULT_MAX_RECORDED_REQUESTS = 1000;
const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** Per-run memories (fired scenarios, header fault counts) are bounded; the oldest go first. */
const MAX_REMEMBERED_KEYS = 10_000;
/** How long a `stream_stall` fault holds a stream silent when it names no `stallMs`. */
const DEFAULT_STALL_MS = 600_000;

const HEADER_SCENARIO = 'x-buildfleet-scenario';
const HEADER_TEXT_CALLS = 'x-buildfleet-text-calls';
const HEADER_FAULT = 'x-buildfleet-fault';
const HEADER_RUN_ID = 'x-buildfleet-run-id';

interface JsonAnswer {
  status: number;
  body: unknown;
  /** Sent with the answer, JSON or event stream alike. */
  headers?: Record<string, string>;
  /** Set for `stream: true`: the answer goes out as server-sent events (stream-message.ts). */
  stream?: {
    rendered: RenderedMessage;
    timing: AnswerTiming;
    streamError: StreamErrorPlan | undefined;
    stall: StreamStallPlan | undefined;
    eagerInputTools: readonly string[];
    /** The prompt-cache entries this request writes become readable (its message_start goes out). */
    responseBegins: () => void;
  };
}

/** What the Messages handling reads of a request: its headers (a cloud route passes translated ones). */
type RequestHeaders = Pick<IncomingMessage, 'headers'>;

function headerValue(incoming: RequestHeaders, name: string): string | undefined {
  const value = incoming.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The caller's API key: prompt caches and rate limits are kept per key. */
function apiKeyOf(incoming: RequestHeaders): string {
  return headerValue(incoming, 'x-api-key') ?? headerValue(incoming, 'authorization')?.replace(/^Bearer\s+/i, '') ?? '';
}

function flattenHeaders(incoming: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function remember<Value>(memory: Map<string, Value>, key: string, value: Value): void {
  memory.delete(key);
  memory.set(key, value);
  if (memory.size > MAX_REMEMBERED_KEYS) {
    const oldest = memory.keys().next().value;
    if (oldest !== undefined) memory.delete(oldest);
  }
}

function errorAnswer(status: number, type: ApiErrorType, message: string, requestId: string): JsonAnswer {
  return { status, body: createApiErrorBody({ type, message, requestId }) };
}

class BodyTooLarge extends Error {}

async function readBody(incoming: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

/** Starts the simulator; resolves once it listens. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const share = options.invalidInputShare;
  if (share !== undefined && !(share >= 0 && share <= 1)) throw new Error(`invalidInputShare must be a share from 0 to 1, not ${share}`);
  const host = options.host ?? DEFAULT_HOST;
  const seed = options.seed ?? DEFAULT_SEED;
  const textCallTable = options.textCallProbability ?? DEFAULT_TEXT_CALL_PROBABILITY;
  const maxRecorded = options.maxRecordedRequests ?? DEFAULT_MAX_RECORDED_REQUESTS;
  const clock = options.clock ?? Date.now;
  const faults = new FaultController({ clock });
  const rateLimiter = new RateLimiter({ ...(options.rateLimits ? { limits: options.rateLimits } : {}), clock });
  const promptCache = new PromptCache({ clock });
  const requests: RecordedRequest[] = [];
  const firedScenarios = new Map<string, true>();
  const headerFaultUses = new Map<string, number>();
  const shutdown = new AbortController();
  // Every request in flight waits on this signal (its latency, its stream): thousands at once
  // under load are expected, each listener gone when its wait ends.
  setMaxListeners(0, shutdown.signal);
  const profile = TIMING_PROFILES[options.profile ?? 'instant'];
  const site = { size: options.siteSize ?? profile.siteSize, seed };
  const signer = new ThinkingSigner(options.thinkingSecret === undefined ? {} : { secret: options.thinkingSecret });

  const baseLatency = () => {
    if (!options.latencyMs) return 0;
    const { min, max } = options.latencyMs;
    return min + Math.random() * Math.max(0, max - min);
  };

  function record(entry: RecordedRequest): RecordedRequest {
    requests.push(entry);
    if (requests.length > maxRecorded) requests.splice(0, requests.length - maxRecorded);
    return entry;
  }

  function send(outgoing: ServerResponse, answer: JsonAnswer, requestId: string): void {
    if (outgoing.destroyed || outgoing.writableEnded) return;
    // A stream that failed midway cannot turn into a JSON answer: drop the connection.
    if (outgoing.headersSent) {
      outgoing.destroy();
      return;
    }
    const payload = JSON.stringify(answer.body);
    outgoing.writeHead(answer.status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
      'request-id': requestId,
      ...answer.headers,
    });
    outgoing.end(payload);
  }

  /** The fault from `x-buildfleet-fault`, honouring its per-run count. */
  function headerFault(value: string | undefined, runId: string | undefined): { fault: FaultSpec | undefined; problem: string | null } {
    if (value === undefined || value.trim() === '') return { fault: undefined, problem: null };
    const parsed = parseFaultHeader({ value });
    if (!parsed.ok) return { fault: undefined, problem: parsed.message };
    if (runId === undefined) return { fault: parsed.fault, problem: null };
    const key = `${runId}\u0000${value}`;
    const used = headerFaultUses.get(key) ?? 0;
    if (used >= parsed.count) return { fault: undefined, problem: null };
    remember(headerFaultUses, key, used + 1);
    return { fault: parsed.fault, problem: null };
  }

  async function handleMessages(incoming: RequestHeaders, entry: RecordedRequest, bodyText: string): Promise<JsonAnswer | 'reset'> {
    const requestId = entry.requestId ?? createIdentifier({ prefix: 'req_' });
    const runId = headerValue(incoming, HEADER_RUN_ID);
    const taken = faults.take({ runId });
    const fromHeader = taken.fault ? { fault: undefined, problem: null } : headerFault(headerValue(incoming, HEADER_FAULT), runId);
    if (fromHeader.problem) return errorAnswer(400, 'invalid_request_error', fromHeader.problem, requestId);
    const fault = taken.fault ?? fromHeader.fault;
    entry.fault = fault?.kind ?? null;

    let delayMs = baseLatency() + taken.latencyMs;
    if (fault?.kind === 'slow' || fault?.kind === 'latency') delayMs += fault.kind === 'slow' ? fault.delayMs : (fault.delayMs ?? 0);
    const stall = fault?.kind === 'stream_stall' ? { afterEvents: fault.afterEvents ?? 1, stallMs: fault.stallMs ?? DEFAULT_STALL_MS } : undefined;
    if (fault?.kind === 'connection_reset') return 'reset';
    if (delayMs > 0) await sleep(delayMs, undefined, { signal: shutdown.signal });

    if (fault) {
      const answer = faultAnswer({ fault, requestId, now: clock() });
      if (answer) return answer;
    }
    const read = readMessagesBody(incoming, bodyText, requestId);
    if ('status' in read) return read;
    const parsed = parseMessagesRequest({ ...read, signer });
    if (!parsed.ok) return errorAnswer(parsed.status, errorTypeForStatus({ status: parsed.status }), parsed.message, requestId);
    entry.cacheBreakpoints = parsed.request.promptBlocks.reduce((count, block) => count + block.markers.length, 0);
    const thinkingProblem = verifyThinkingBlocks({ request: parsed.request });
    if (thinkingProblem) return errorAnswer(400, 'invalid_request_error', thinkingProblem, requestId);
    if (fault?.kind === 'stream_error' && !parsed.request.stream) return streamErrorAnswer({ fault, requestId });

    const scenarioHeader = headerValue(incoming, HEADER_SCENARIO)?.trim() || 'happy';
    if (!isScenarioName(scenarioHeader)) {
      const known = SCENARIO_NAMES.join(', ');
      return errorAnswer(400, 'invalid_request_error', `${HEADER_SCENARIO}: unknown scenario "${scenarioHeader}"; known: ${known}`, requestId);
    }
    const scenario: ScenarioName = scenarioHeader;
    entry.scenario = scenario;
    const modeHeader = headerValue(incoming, HEADER_TEXT_CALLS)?.trim().toLowerCase() || 'on';
    if (!(TEXT_CALL_MODES as readonly string[]).includes(modeHeader)) {
      return errorAnswer(400, 'invalid_request_error', `${HEADER_TEXT_CALLS}: expected one of ${TEXT_CALL_MODES.join(', ')}`, requestId);
    }
    const textFormat = parseTextFormatHeader(headerValue(incoming, HEADER_TEXT_FORMAT));
    if (!textFormat.ok) return errorAnswer(400, 'invalid_request_error', textFormat.message, requestId);
    // A scripted turn the request rules out is refused before admission, as the API's own 400s
    // are: it spends no rate limit (scripted-turn.ts says which answers a request rules out).
    if (options.script) {
      const scripted = answerFromScript({ script: options.script, request: parsed.request });
      if (scripted.kind === 'violation') return errorAnswer(400, 'invalid_request_error', scripted.message, requestId);
    }

    // Admission (admit-request.ts): the prompt cache decides the input tokens; nothing is cached or spent on a 429.
    const { cachePlan, admission } = admitRequest({ request: parsed.request, apiKey: apiKeyOf(incoming), promptCache, rateLimiter });
    const promptUsage = cachePlan.usage;
    if (!admission.admitted) {
      const answer = errorAnswer(429, 'rate_limit_error', admission.message, requestId);
      return { ...answer, headers: { ...admission.headers, 'retry-after': String(admission.retryAfterSeconds) } };
    }
    // The entries it writes become readable when the response begins, not at admission: "the API
    // processes the full prompt and caches the prefix once the response begins" (docs
    // build-with-claude/prompt-caching, "How prompt caching works"), so a parallel request with the
    // same prefix that arrives meanwhile misses and writes too. Streamed: when message_start goes out
    // (the first event, at once); JSON: when the whole answer is sent.

    const memoryKey = runId ? `${runId}\u0000${scenario}` : null;
    const plan = respondToMessages({
      request: parsed.request,
      scenario,
      textCallMode: modeHeader as TextCallMode,
      textFormat: textFormat.format,
      textCallTable,
      seed,
      scenarioFiredForRun: memoryKey !== null && firedScenarios.has(memoryKey),
      site,
      ...(options.script ? { script: options.script } : {}),
      ...(options.policy ? { policy: options.policy } : {}),
      ...(options.invalidInputShare !== undefined ? { invalidInputShare: options.invalidInputShare } : {}),
    });
    if (plan.firesOncePerRun && memoryKey !== null) remember(firedScenarios, memoryKey, true);
    const { model, maxTokens, modelDescription, bindingBase, bindingMessages, inputTransformations } = parsed.request;
    const binding = { producer: modelDescription.id, bindingBase, messages: bindingMessages };
    const rendered = createAssistantMessage({ plan, model, modelDescription, maxTokens, signer, promptUsage, binding, inputTransformations });
    // The output estimate (max_tokens) is settled to what the answer uses as soon as it is known.
    admission.reservation.settle({ outputTokens: rendered.body.usage.output_tokens });
    entry.stopReason = rendered.body.stop_reason;
    entry.source = plan.source;
    entry.usage = rendered.body.usage;
    const timing = drawAnswerTiming({
      profile,
      ...(options.ttftMs !== undefined ? { ttftMs: options.ttftMs } : {}),
      ...(options.tokensPerSecond !== undefined ? { tokensPerSecond: options.tokensPerSecond } : {}),
      seed,
      transcriptHash: hashTranscript({ messages: parsed.request.messages, toolNames: parsed.request.toolNames }),
    });
    if (parsed.request.stream) {
      const streamError = fault?.kind === 'stream_error' ? streamErrorPlanOf({ fault }) : undefined;
      return {
        status: 200,
        body: rendered.body,
        headers: admission.headers,
        stream: { rendered, timing, streamError, stall, eagerInputTools: parsed.request.eagerInputStreamingTools, responseBegins: cachePlan.commit },
      };
    }
    // A JSON answer arrives once the whole message is generated.
    const waitMs = generationTimeMs({ timing, outputTokens: rendered.body.usage.output_tokens }) + (stall?.stallMs ?? 0);
    if (waitMs > 0) await sleep(waitMs, undefined, { signal: shutdown.signal });
    cachePlan.commit();
    return { status: 200, body: rendered.body, headers: admission.headers };
  }

  function handleAdmin(method: string, path: string, bodyText: string, requestId: string): JsonAnswer | null {
    if (path === '/healthz' && method === 'GET') return { status: 200, body: { status: 'ok' } };
    if (path === '/_sim/faults') {
      if (method === 'GET') return { status: 200, body: { pending: faults.pending() } };
      if (method === 'DELETE') return { status: 200, body: { cleared: faults.clear() } };
      if (method === 'POST') {
        const json = parseJson(bodyText);
        if (!json.ok) return errorAnswer(400, 'invalid_request_error', `There was an error parsing the body: ${json.message}`, requestId);
        try {
          const before = faults.pending().length;
          faults.add(json.value as FaultSpec[]);
          return { status: 200, body: { queued: faults.pending().length - before, pending: faults.pending() } };
        } catch (error) {
          if (!(error instanceof ZodError)) throw error;
          const problems = error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`).join('; ');
          return errorAnswer(400, 'invalid_request_error', `invalid fault list: ${problems}`, requestId);
        }
      }
    }
    if (path === '/_sim/rate-limits') {
      if (method === 'GET') return { status: 200, body: { limits: rateLimiter.limits() } };
      if (method === 'DELETE') return { status: 200, body: { reset: rateLimiter.reset() } };
      if (method === 'PUT') {
        const json = parseJson(bodyText);
        if (!json.ok) return errorAnswer(400, 'invalid_request_error', `There was an error parsing the body: ${json.message}`, requestId);
        const limits = rateLimitsSchema.safeParse(json.value);
        if (!limits.success) {
          const problems = limits.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`).join('; ');
          return errorAnswer(400, 'invalid_request_error', `invalid rate limits: ${problems}`, requestId);
        }
        return { status: 200, body: { limits: rateLimiter.setLimits(limits.data) } };
      }
    }
    if (path === '/_sim/prompt-cache' && method === 'DELETE') return { status: 200, body: { cleared: promptCache.clear() } };
    if (path === '/_sim/requests') {
      if (method === 'GET') {
        const summaries = requests.map((entry) => {
          const body = (typeof entry.body === 'object' && entry.body !== null ? entry.body : {}) as Record<string, unknown>;
          return {
            timestampMs: entry.timestampMs,
            method: entry.method,
            path: entry.path,
            endpoint: requestEndpoint({ path: entry.path }),
            requestId: entry.requestId,
            runId: entry.headers[HEADER_RUN_ID] ?? null,
            scenario: entry.scenario,
            model: typeof body.model === 'string' ? body.model : null,
            messageCount: Array.isArray(body.messages) ? body.messages.length : null,
            toolCount: Array.isArray(body.tools) ? body.tools.length : null,
            status: entry.status,
            stopReason: entry.stopReason,
            source: entry.source,
            fault: entry.fault,
            durationMs: entry.durationMs,
            streamed: entry.streamed,
            abandoned: entry.abandoned,
            conversationHash: entry.conversationHash,
            usage: entry.usage,
            cacheBreakpoints: entry.cacheBreakpoints,
          };
        });
        return { status: 200, body: { requests: summaries } };
      }
      if (method === 'DELETE') return { status: 200, body: { cleared: requests.splice(0).length } };
    }
    return null;
  }

  /** A Messages-shaped body (Messages, count_tokens) after the header checks: the JSON and the betas,
   * or the error answer. */
  function readMessagesBody(
    incoming: RequestHeaders,
    bodyText: string,
    requestId: string,
  ): JsonAnswer | { body: unknown; acceptsBetaFields: boolean; betas: string[]; apiVersion: string | undefined } {
    const headerProblem = checkApiHeaders({ headers: incoming.headers });
    if (headerProblem) return errorAnswer(headerProblem.status, headerProblem.type, headerProblem.message, requestId);
    const json = parseJson(bodyText);
    if (!json.ok) return errorAnswer(400, 'invalid_request_error', `There was an error parsing the body: ${json.message}`, requestId);
    const betaHeader = incoming.headers['anthropic-beta'];
    return {
      body: json.value,
      acceptsBetaFields: betaHeader !== undefined,
      betas: parseBetaHeader({ header: betaHeader }),
      apiVersion: headerValue(incoming, 'anthropic-version'),
    };
  }

  /** GET /v1/models[/{id}] and POST /v1/messages/count_tokens: the same credential and version
   * checks as Messages; no faults, no rate limits, no model time. */
  function answerModelsOrCount({
    incoming,
    path,
    method,
    bodyText,
    requestId,
  }: {
    incoming: IncomingMessage;
    path: string;
    method: string;
    bodyText: string;
    requestId: string;
  }): JsonAnswer {
    if (method === 'GET') {
      const headerProblem = checkApiHeaders({ headers: incoming.headers });
      if (headerProblem) return errorAnswer(headerProblem.status, headerProblem.type, headerProblem.message, requestId);
      const answer = answerModelsRequest({
        path,
        query: new URL(incoming.url ?? '/', 'http://simulator').searchParams,
        extraModels: options.extraModels ?? [],
      });
      return answer.status === 200 ? answer : errorAnswer(answer.status, errorTypeForStatus({ status: answer.status }), answer.message, requestId);
    }
    const read = readMessagesBody(incoming, bodyText, requestId);
    if ('status' in read) return read;
    const answer = answerCountTokens({ ...read, signer });
    return answer.status === 200 ? answer : errorAnswer(answer.status, errorTypeForStatus({ status: answer.status }), answer.message, requestId);
  }

  // POST /v1/chat/completions (chat-completions/): the same model behind an OpenAI-compatible endpoint.
  const chatCompletions: ChatCompletionsContext = {
    faults,
    rateLimiter,
    promptCache,
    signer,
    seed,
    site,
    textCallTable,
    profile,
    ttftMs: options.ttftMs,
    tokensPerSecond: options.tokensPerSecond,
    clock,
    signal: shutdown.signal,
    baseLatencyMs: baseLatency,
    headerFault,
    scenarioFired: (key) => firedScenarios.has(key),
    rememberScenarioFired: (key) => remember(firedScenarios, key, true),
  };

  async function handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const started = Date.now();
    const method = incoming.method ?? 'GET';
    const path = new URL(incoming.url ?? '/', 'http://simulator').pathname;
    const requestId = createIdentifier({ prefix: 'req_' });
    const isAdmin = path === '/healthz' || path.startsWith('/_sim/');
    const entry: RecordedRequest | null = isAdmin
      ? null
      : record({
          timestampMs: started,
          method,
          path,
          headers: flattenHeaders(incoming),
          body: null,
          status: 0,
          requestId,
          durationMs: null,
          fault: null,
          scenario: null,
          stopReason: null,
          source: null,
          streamed: false,
          abandoned: false,
          conversationHash: null,
          usage: null,
          cacheBreakpoints: null,
        });

    let bodyText: string;
    try {
      bodyText = await readBody(incoming);
    } catch (error) {
      if (!(error instanceof BodyTooLarge)) throw error;
      const answer = errorAnswer(413, 'request_too_large', `Request exceeds the maximum size of ${MAX_BODY_BYTES} bytes`, requestId);
      if (entry) Object.assign(entry, { status: 413, durationMs: Date.now() - started });
      send(outgoing, answer, requestId);
      return;
    }
    if (entry) {
      const json = bodyText === '' ? { ok: true as const, value: null } : parseJson(bodyText);
      entry.body = json.ok ? json.value : bodyText;
      if (json.ok && typeof json.value === 'object' && json.value !== null && !Array.isArray(json.value)) {
        const { stream, ...conversation } = json.value as Record<string, unknown>;
        entry.streamed = stream === true;
        entry.conversationHash = createHash('sha256').update(JSON.stringify(conversation)).digest('hex');
      }
      // A 200 answer whose connection closes before it was fully written was abandoned by the client.
      outgoing.once('close', () => {
        if (entry.status === 200 && !outgoing.writableFinished && !shutdown.signal.aborted) entry.abandoned = true;
      });
    }

    if (entry && path === CHAT_COMPLETIONS_PATH && method === 'POST') {
      await handleChatCompletions({ context: chatCompletions, incoming, outgoing, entry, bodyText });
      return;
    }
    let answer: JsonAnswer | 'reset' | null = isAdmin ? handleAdmin(method, path, bodyText, requestId) : null;
    const cloudRoute = entry ? matchCloudRoute({ method, path }) : null;
    if (!answer && entry && cloudRoute) {
      entry.streamed = cloudRoute.stream;
      answer = await answerCloudRequest({
        route: cloudRoute,
        headers: incoming.headers,
        bodyText,
        requestId,
        answerMessages: (translated) => handleMessages({ headers: translated.headers }, entry, translated.bodyText),
      });
    }
    if (!answer && entry && path === '/v1/messages' && method === 'POST') {
      answer = await handleMessages(incoming, entry, bodyText);
      // Every Messages answer carries the rate-limit headers (docs api/rate-limits), errors too:
      // those that spent nothing show the buckets as they are.
      if (answer !== 'reset' && answer.headers?.['anthropic-ratelimit-requests-limit'] === undefined) {
        const model = typeof entry.body === 'object' && entry.body !== null ? (entry.body as Record<string, unknown>).model : undefined;
        const rateLimitClass = (typeof model === 'string' ? lookupModel({ model })?.rateLimitClass : undefined) ?? 'claude-sim';
        answer.headers = { ...rateLimiter.peekHeaders({ apiKey: apiKeyOf(incoming), rateLimitClass }), ...answer.headers };
      }
    }
    if (!answer && entry && ((path === COUNT_TOKENS_PATH && method === 'POST') || (isModelsPath({ path }) && method === 'GET'))) {
      answer = answerModelsOrCount({ incoming, path, method, bodyText, requestId });
    }
    answer ??= errorAnswer(404, 'not_found_error', `Not found: ${method} ${path}`, requestId);

    if (answer === 'reset') {
      if (entry) entry.durationMs = Date.now() - started;
      incoming.socket.destroy();
      return;
    }
    if (answer.stream) {
      if (entry) entry.status = answer.status;
      const { rendered, timing, streamError, stall, eagerInputTools, responseBegins } = answer.stream;
      const headers = { 'request-id': requestId, ...answer.headers };
      responseBegins();
      const target = cloudRoute ? cloudStreamResponse({ route: cloudRoute, outgoing, requestId }) : outgoing;
      await streamMessage({ outgoing: target, headers, rendered, timing, streamError, stall, requestId, signal: shutdown.signal, eagerInputTools });
      if (entry) entry.durationMs = Date.now() - started;
      return;
    }
    if (entry) Object.assign(entry, { status: answer.status, durationMs: Date.now() - started });
    send(outgoing, answer, requestId);
  }

  const server = createServer((incoming, outgoing) => {
    handle(incoming, outgoing).catch((error: unknown) => {
      // Shutting down mid-delay: drop the connection, like a server going away.
      if (shutdown.signal.aborted) {
        outgoing.destroy();
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      const requestId = createIdentifier({ prefix: 'req_' });
      send(outgoing, errorAnswer(500, 'api_error', `simulator failure: ${message}`, requestId), requestId);
    });
  });
  // Keep-alive sockets would otherwise hold close() open until they time out.
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  let closing: Promise<void> | null = null;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    faults,
    requests,
    rateLimits: rateLimiter,
    promptCache,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        shutdown.abort();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
