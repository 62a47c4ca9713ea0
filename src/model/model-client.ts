// The model client: the real Anthropic SDK, pointed at Claude when a key is set and at the
// simulator otherwise. The SDK's own retries are off so every retry goes through the queue.
// Every call streams; BUILDFLEET_MODEL_CONNECT_TIMEOUT_MS bounds the wait for the response headers
// (the SDK arms `timeout` around the fetch only), BUILDFLEET_MODEL_IDLE_TIMEOUT_MS the silence
// between two stream events after them. Neither bounds the length of an answer.
import Anthropic from '@anthropic-ai/sdk';
import type { Config } from '../config.js';
import { isPromptTooLongMessage, type ModelCallFailure } from './classify-model-error.js';
import type { AssistantBlock, ModelResponse, TranscriptMessage } from '../domain/model-message.js';
import type { ToolChoice } from '../domain/tool-choice.js';
import type { ThinkingParam } from '../domain/thinking-request.js';
import type { EffortLevel } from '../domain/model-catalog.js';
import { usageFromApi, type UsageByClass } from '../domain/usage.js';
import type { Tokenizer } from '../domain/estimate-text-tokens.js';
import { lookupModelCapabilities } from '../domain/model-capabilities.js';
import type { CacheControl, SystemTextBlock } from './place-cache-breakpoints.js';
import { createStreamIdleWatchdog, ModelStreamIdleError } from './stream-idle-watchdog.js';
import { createStreamProgressTracker, type ModelStreamProgress } from './stream-progress.js';

export { ModelStreamIdleError };
export type { ModelStreamProgress };

export class ModelConfigurationError extends Error {
  readonly code = 'model_not_configured';
}

export function createModelClient(
  config: Pick<Config, 'ANTHROPIC_API_KEY' | 'ANTHROPIC_BASE_URL' | 'BUILDFLEET_SIMULATOR_URL' | 'BUILDFLEET_MODEL_CONNECT_TIMEOUT_MS'>,
): Anthropic {
  const baseURL = config.ANTHROPIC_BASE_URL ?? (config.ANTHROPIC_API_KEY ? undefined : config.BUILDFLEET_SIMULATOR_URL);
  if (!config.ANTHROPIC_API_KEY && !baseURL) {
    throw new ModelConfigurationError(
      'No model configured: set ANTHROPIC_API_KEY to call Claude, or ANTHROPIC_BASE_URL (or BUILDFLEET_SIMULATOR_URL) to a simulator (`buildfleet sim`).',
    );
  }
  return new Anthropic({
    apiKey: config.ANTHROPIC_API_KEY ?? 'simulator',
    ...(baseURL ? { baseURL } : {}),
    maxRetries: 0,
    timeout: config.BUILDFLEET_MODEL_CONNECT_TIMEOUT_MS,
  });
}

export interface ModelRequest {
  model: string;
  maxTokens: number;
  /** A string, or text blocks when one carries a prompt-cache breakpoint (place-cache-breakpoints.ts). */
  system: string | SystemTextBlock[];
  /** The transcript as sent: its blocks may carry `cache_control` (never stored). */
  messages: TranscriptMessage[];
  tools: Array<{ name: string; description: string; input_schema: unknown; cache_control?: CacheControl }>;
  toolChoice: ToolChoice;
  /** The run's thinking (domain/thinking-request.ts; never with a forced toolChoice where the
   * API answers 400). Absent: the request leaves `thinking` out. */
  thinking?: ThinkingParam;
  /** `output_config` (the run's effort); absent: left out. */
  outputConfig?: { effort: EffortLevel };
  /** `anthropic-beta` values the request needs (display `updates`). */
  betas?: string[];
  stopSequences: string[];
  headers: Record<string, string>;
  signal?: AbortSignal;
  /** The model's tokenizer generation (its capabilities' `tokenizer`), for the estimates a
   * provider makes of what it has not been told (output tokens while streaming, usage a server
   * left out); unset: the catalog's entry of `model`. */
  tokenizer?: Tokenizer;
}

/** What count_tokens is asked about: a call's prompt as it will be sent (docs
 * build-with-claude/token-counting: the same body as Messages, without max_tokens). */
export type TokenCountRequest = Pick<ModelRequest, 'model' | 'system' | 'messages' | 'tools' | 'toolChoice' | 'thinking' | 'outputConfig' | 'betas'>;

export interface ModelCallOptions {
  /** Abandon the call when the stream sends nothing (not even a ping) for this long. */
  idleTimeoutMs: number;
  /** Minimum time between two interval progress reports. */
  progressIntervalMs?: number;
  /** Progress while the answer streams (throttled; see stream-progress.ts). */
  onProgress?: (progress: ModelStreamProgress) => void;
  /** The API's request-id, as soon as the response headers arrive. */
  onConnect?: (requestId: string | null) => void;
  /** The first content of the answer arrived (its time to first token; the run's waterfall shows it). */
  onFirstToken?: () => void;
}

/** The final message of a streamed call and the API's id for the request. */
export interface ModelCallResult {
  response: ModelResponse;
  requestId: string | null;
  /** The response headers (the SDK's MessageStream keeps the Response it connected with:
   * lib/MessageStream.ts `response`), for the anthropic-ratelimit-* headers the admission limiter
   * reads, and when they arrived (ms). An error's headers are on the APIError (`headers`). */
  headers: Headers | null;
  headersReceivedAt: number | null;
}

/** The stream ended (the connection closed cleanly) before `message_stop`: the answer is
 * incomplete, so it is never stored, and the call counts as a connection failure. */
export class ModelStreamIncompleteError extends Error {
  readonly code = 'model_stream_incomplete';
  constructor(
    message: string,
    readonly requestId: string | null,
  ) {
    super(message);
    this.name = 'ModelStreamIncompleteError';
  }
}

const paidUsageOfFailures = new WeakMap<object, UsageByClass>();

/**
 * What a call that failed after its stream started had already cost: the input classes of its
 * `message_start` and the output generated before it broke (the API's count from a message_delta,
 * else the estimate from the streamed text). The API bills a request once it starts generating,
 * whether or not the client reads it to the end (docs api/messages-streaming; the fleet's own
 * production experiment counts these as paid), so the run and its tenant are charged for it.
 * Null when the call failed before `message_start` (a refused request costs nothing).
 */
export function paidUsageOfFailedCall(error: unknown): UsageByClass | null {
  return typeof error === 'object' && error !== null ? (paidUsageOfFailures.get(error) ?? null) : null;
}

/** Records what a failed call had already cost, for paidUsageOfFailedCall: every provider's call
 * notes it on the error it throws (src/providers/). */
export function notePaidUsageOfFailedCall(error: object, usage: UsageByClass): void {
  paidUsageOfFailures.set(error, usage);
}

/** Any Anthropic-family client: Anthropic, AnthropicBedrock and AnthropicVertex share the
 * Messages surface callModel uses (each SDK's `messages.stream`, lib/MessageStream.ts). */
export interface AnthropicFamilyClient {
  messages: Pick<Anthropic['messages'], 'stream'>;
}

/** The tokenizer of a request's estimates: the one the turn names, else the catalog's for its
 * model (an unknown model gets the newer one, so estimates err high). */
export function requestTokenizer(request: Pick<ModelRequest, 'model' | 'tokenizer'>): Tokenizer {
  return request.tokenizer ?? lookupModelCapabilities({ model: request.model, overrides: {} }).capabilities.tokenizer;
}

/** A count that takes longer than this is abandoned: calibration must not hold a turn up. */
const COUNT_TOKENS_TIMEOUT_MS = 5000;

/** The prompt tokens of `request` as the provider counts them (POST /v1/messages/count_tokens,
 * the SDK's messages.countTokens): free, but rate-limited on its own, so the fleet calls it only
 * to calibrate its estimates now and then (token-calibration.ts), never before every call. */
export async function countPromptTokens(client: Pick<Anthropic, 'messages'>, request: TokenCountRequest): Promise<number> {
  const counted = await client.messages.countTokens(promptBody(request), { timeout: COUNT_TOKENS_TIMEOUT_MS, headers: withBetas({}, request.betas) });
  return counted.input_tokens;
}

/** The part of a Messages body that makes the prompt: what a call sends and count_tokens counts. */
function promptBody(request: TokenCountRequest) {
  return {
    model: request.model,
    system: request.system,
    messages: request.messages as Anthropic.MessageParam[],
    tools: request.tools as Anthropic.Tool[],
    tool_choice: request.toolChoice,
    // `display: 'updates'` is in the SDK's beta types only; its header goes with the request.
    ...(request.thinking ? { thinking: request.thinking as Anthropic.ThinkingConfigParam } : {}),
    ...(request.outputConfig ? { output_config: request.outputConfig } : {}),
  };
}

/**
 * One model call, streamed: the SDK's MessageStream accumulates the events into the final message,
 * which is exactly what a non-streaming call would have returned (lib/MessageStream.ts,
 * `finalMessage()`), so the stored answer and the once-only guarantees are unchanged. Streaming is
 * what the SDK asks for with long outputs ("Streaming is strongly recommended for operations that
 * may take longer than 10 minutes", client.ts calculateNonstreamingTimeout) and keeps the
 * connection busy, so it is judged by silence rather than length (stream-idle-watchdog.ts).
 */
export async function callModel(client: AnthropicFamilyClient, request: ModelRequest, options: ModelCallOptions): Promise<ModelCallResult> {
  const watchdog = createStreamIdleWatchdog({ idleTimeoutMs: options.idleTimeoutMs, outer: request.signal });
  const progress = createStreamProgressTracker({ intervalMs: options.progressIntervalMs ?? 2000, tokenizer: requestTokenizer(request) });
  const stream = client.messages.stream(
    { ...promptBody(request), max_tokens: request.maxTokens, stop_sequences: request.stopSequences },
    { headers: withBetas(request.headers, request.betas), signal: watchdog.signal, middleware: [watchdog.middleware] },
  );
  let sawMessageStop = false;
  let startUsage: Anthropic.Usage | null = null;
  let headersReceivedAt: number | null = null;
  stream.on('connect', () => {
    headersReceivedAt = Date.now();
    options.onConnect?.(stream.request_id ?? null);
  });
  let sawContent = false;
  stream.on('streamEvent', (event) => {
    // message_start comes at once with the headers; the first block is the first generated token.
    if (!sawContent && (event.type === 'content_block_start' || event.type === 'content_block_delta')) {
      sawContent = true;
      options.onFirstToken?.();
    }
    if (event.type === 'message_stop') sawMessageStop = true;
    else if (event.type === 'message_start') startUsage = event.message.usage;
    const report = progress.observe(event);
    if (report) options.onProgress?.(report);
  });
  let message: Anthropic.Message;
  try {
    message = await stream.finalMessage();
  } catch (error) {
    const failure = describeStreamFailure(error, stream.request_id ?? null, watchdog.fired, options.idleTimeoutMs);
    if (startUsage && typeof failure === 'object' && failure !== null) {
      const started: Anthropic.Usage = startUsage;
      paidUsageOfFailures.set(failure, usageFromApi({ ...started, output_tokens: Math.max(started.output_tokens ?? 0, progress.outputTokensSoFar()) }));
    }
    throw failure;
  } finally {
    watchdog.stop();
  }
  const requestId = stream.request_id ?? null;
  if (!sawMessageStop) {
    const incomplete = new ModelStreamIncompleteError('The model stream ended before message_stop.', requestId);
    paidUsageOfFailures.set(incomplete, usageFromApi(message.usage));
    throw incomplete;
  }
  return { response: toModelResponse(message), requestId, headers: stream.response?.headers ?? null, headersReceivedAt };
}

/** The request's headers with its betas joined into `anthropic-beta` (as the SDK's beta resources
 * send them: one comma-separated header), after any the caller set. */
export function withBetas(headers: Record<string, string>, betas: readonly string[] | undefined): Record<string, string> {
  if (!betas || betas.length === 0) return headers;
  const existing = headers['anthropic-beta'];
  return { ...headers, 'anthropic-beta': [...(existing ? [existing] : []), ...betas].join(',') };
}

/** The error a failed streamed call is reported as: the fleet's own when it abandoned the stream
 * (idle) or the stream ended early, the SDK's APIError as it is. */
function describeStreamFailure(error: unknown, streamRequestId: string | null, idleFired: boolean, idleTimeoutMs: number): unknown {
  const requestId = streamRequestId ?? (error instanceof Anthropic.APIError ? (error.requestID ?? null) : null);
  if (idleFired) return new ModelStreamIdleError(idleTimeoutMs, requestId);
  if (error instanceof Anthropic.APIError) return error;
  // "stream ended without producing a Message", "request ended without sending any chunks".
  if (error instanceof Anthropic.AnthropicError && !(error instanceof Anthropic.APIUserAbortError))
    return new ModelStreamIncompleteError(error.message, requestId);
  return error;
}

/** The stored shape: text and tool_use as the fleet writes them; every other block (thinking with
 * its signature, redacted_thinking with its data, …) exactly as the API sent it, because the API
 * verifies those when they come back (build-with-claude/extended-thinking). */
export function toModelResponse(message: Anthropic.Message): ModelResponse {
  return {
    id: message.id,
    model: message.model,
    content: message.content.map((block) =>
      block.type === 'text'
        ? { type: 'text', text: block.text }
        : block.type === 'tool_use'
          ? { type: 'tool_use', id: block.id, name: block.name, input: readToolInput(block) }
          : ({ ...block } as unknown as AssistantBlock),
    ),
    stop_reason: message.stop_reason,
    stop_sequence: message.stop_sequence,
    // Every class the API reports, cache reads and writes by lifetime included (domain/usage.ts).
    usage: usageFromApi(message.usage),
  };
}

/** A tool_use block's input. The SDK parses the streamed input_json_delta text lazily, on first
 * read, and throws when it is not JSON — which eagerly streamed tool input may be ("the model may
 * emit invalid or partial JSON", docs agents-and-tools/tool-use/fine-grained-tool-streaming). A
 * throw here would fail an answer that was already paid for and send it again; instead the call
 * keeps an input that names the problem, which the fleet's schema check refuses as
 * tool_input_invalid and tells the model, at no second charge. */
function readToolInput(block: Anthropic.ToolUseBlock): unknown {
  try {
    return block.input;
  } catch (error) {
    return { INVALID_JSON: error instanceof Error ? error.message : String(error) };
  }
}

/** Reads what the SDK's error carries into the shape classifyModelError takes. */
export function describeModelError(error: unknown): ModelCallFailure {
  if (error instanceof ModelStreamIdleError || error instanceof ModelStreamIncompleteError) {
    return { connectionFailure: true, message: error.message, requestId: error.requestId };
  }
  if (error instanceof Anthropic.APIConnectionError) {
    return { connectionFailure: true, message: error.message };
  }
  if (error instanceof Anthropic.APIError) {
    // A mid-stream `error` event arrives as an APIError without a status, its body the event's
    // data ({type: 'error', error: {type, message}}) and its headers those of the stream.
    const body = (error.error ?? {}) as { error?: { type?: string; message?: string; details?: { error_code?: string } } };
    const message = body.error?.message ?? error.message;
    return {
      status: error.status,
      headers: error.headers as Headers | undefined,
      errorType: body.error?.type ?? error.type ?? undefined,
      // A prompt over the context window is told by its message alone (no code of its own): the
      // same code as an OpenAI-compatible server's, which classifyModelError ends the run with.
      errorCode: body.error?.details?.error_code ?? (isPromptTooLongMessage(message) ? 'context_length_exceeded' : undefined),
      message,
      requestId: error.requestID ?? null,
    };
  }
  return { connectionFailure: true, message: error instanceof Error ? error.message : String(error) };
}
