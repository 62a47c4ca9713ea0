// `POST /v1/chat/completions`: the simulator as an OpenAI-compatible server (vLLM, llama.cpp's
// server, Ollama, SGLang) in front of the same simulated model as `/v1/messages`. The request is
// validated as the OpenAI API validates it (parse-chat-completions-request.ts), converted into the
// internal Messages-shaped request (build-messages-request.ts), answered by the same policy,
// scenarios and text-call drift (respond-to-messages.ts), rendered with the same ids, cut and usage
// (assistant-message.ts), and written as a chat completion (chat-completion-answer.ts) or its stream
// (stream-chat-completion.ts). Faults, the rate limiter, the prompt cache, per-run scenario memory
// and the request log are the server's own, shared with the Messages endpoint.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { admitRequest } from '../admit-request.js';
import { createAssistantMessage } from '../assistant-message.js';
import { hashTranscript } from '../deterministic-random.js';
import type { FaultController } from '../fault-controller.js';
import { faultAnswer } from '../fault-response.js';
import type { FaultSpec } from '../fault-spec.js';
import type { PromptCache } from '../prompt-cache.js';
import type { RateLimiter } from '../rate-limiter.js';
import { respondToMessages } from '../respond-to-messages.js';
import { isScenarioName, SCENARIO_NAMES } from '../../domain/scenario-names.js';
import type { SiteOptions } from '../site-plan.js';
import { streamErrorAnswer, streamErrorPlanOf } from '../stream-error-fault.js';
import { TEXT_CALL_MODES, type TextCallMode, type TextCallProbabilityTable } from '../text-call-decision.js';
import type { ThinkingSigner } from '../thinking-signature.js';
import { drawAnswerTiming, generationTimeMs, type TimingProfile } from '../timing-profile.js';
import type { AnswerUsage } from '../usage-accounting.js';
import { buildMessagesRequest } from './build-messages-request.js';
import { chatCompletionBody, createChatAnswer } from './chat-completion-answer.js';
import { chatErrorAnswerOf, rateLimitedAnswer } from './openai-error-answer.js';
import { ChatRequestRefused, createOpenAIErrorBody } from './openai-error.js';
import { openAIRateLimitHeaders } from './openai-rate-limit-headers.js';
import { chatTextFormat, HEADER_TEXT_FORMAT } from './chat-text-format.js';
import { HEADER_TOOL_PARSER, parseToolParserHeader, toolParserTurn } from './chat-tool-parser.js';
import { parseChatCompletionsRequest } from './parse-chat-completions-request.js';
import { streamChatCompletion } from './stream-chat-completion.js';

export const CHAT_COMPLETIONS_PATH = '/v1/chat/completions';

const HEADER_SCENARIO = 'x-buildfleet-scenario';
const HEADER_TEXT_CALLS = 'x-buildfleet-text-calls';
const HEADER_FAULT = 'x-buildfleet-fault';
const HEADER_RUN_ID = 'x-buildfleet-run-id';
/** How long a `stream_stall` fault holds a stream silent when it names no `stallMs` (as on /v1/messages). */
const DEFAULT_STALL_MS = 600_000;

/** What the endpoint shares with the rest of the simulator (simulator-server.ts builds it once). */
export interface ChatCompletionsContext {
  faults: FaultController;
  rateLimiter: RateLimiter;
  promptCache: PromptCache;
  signer: ThinkingSigner;
  seed: number;
  site: SiteOptions;
  textCallTable: TextCallProbabilityTable;
  profile: TimingProfile;
  ttftMs: number | undefined;
  tokensPerSecond: number | undefined;
  clock: () => number;
  /** Aborted when the simulator shuts down. */
  signal: AbortSignal;
  /** The configured base latency of one answer, ms. */
  baseLatencyMs: () => number;
  /** The fault of header `x-buildfleet-fault`, honouring its per-run count. */
  headerFault: (value: string | undefined, runId: string | undefined) => { fault: FaultSpec | undefined; problem: string | null };
  /** Per-run memory of once-scenarios, shared with /v1/messages. */
  scenarioFired: (key: string) => boolean;
  rememberScenarioFired: (key: string) => void;
}

/** The request-log entry the endpoint fills in (simulator-server.ts RecordedRequest). */
export interface ChatRequestRecord {
  requestId: string | null;
  status: number;
  durationMs: number | null;
  fault: FaultSpec['kind'] | null;
  scenario: string | null;
  stopReason: string | null;
  source: string | null;
  usage: AnswerUsage | null;
}

type Outcome =
  | { kind: 'json'; status: number; body: unknown; headers: Record<string, string> }
  | { kind: 'reset' }
  | { kind: 'stream'; headers: Record<string, string>; write: (outgoing: ServerResponse, headers: Record<string, string>) => Promise<unknown> };

function headerValue(incoming: IncomingMessage, name: string): string | undefined {
  const value = incoming.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The caller's key: vLLM takes `Authorization: Bearer <key>` (`--api-key`); buckets are kept per key. */
function apiKeyOf(incoming: IncomingMessage): string {
  return headerValue(incoming, 'authorization')?.replace(/^Bearer\s+/i, '') ?? headerValue(incoming, 'x-api-key') ?? '';
}

function refusal(error: ChatRequestRefused): Outcome {
  return { kind: 'json', status: error.status, body: createOpenAIErrorBody(error.error), headers: {} };
}

function invalid(message: string): Outcome {
  return refusal(new ChatRequestRefused({ message }));
}

/** Answers one chat completions request on `outgoing` and fills in its log entry. */
export async function handleChatCompletions({
  context,
  incoming,
  outgoing,
  entry,
  bodyText,
}: {
  context: ChatCompletionsContext;
  incoming: IncomingMessage;
  outgoing: ServerResponse;
  entry: ChatRequestRecord;
  bodyText: string;
}): Promise<void> {
  const started = Date.now();
  const requestId = entry.requestId ?? 'req_unknown';
  let rateLimitHeaders: Record<string, string> = {};
  let outcome: Outcome;
  try {
    outcome = await answer({ context, incoming, entry, bodyText, setRateLimitHeaders: (headers) => (rateLimitHeaders = headers) });
  } catch (error) {
    if (!(error instanceof ChatRequestRefused)) throw error;
    outcome = refusal(error);
  }
  if (outcome.kind === 'reset') {
    entry.durationMs = Date.now() - started;
    incoming.socket.destroy();
    return;
  }
  // Every answer carries the rate-limit headers; one that spent nothing shows the buckets as they are.
  if (Object.keys(rateLimitHeaders).length === 0) {
    rateLimitHeaders = openAIRateLimitHeaders({
      anthropicHeaders: context.rateLimiter.peekHeaders({ apiKey: apiKeyOf(incoming), rateLimitClass: 'claude-sim' }),
      now: context.clock(),
    });
  }
  // openai-node reads `x-request-id` into `_request_id` and APIError.requestID.
  const headers = { 'x-request-id': requestId, ...rateLimitHeaders, ...outcome.headers };
  if (outcome.kind === 'stream') {
    entry.status = 200;
    await outcome.write(outgoing, headers);
    entry.durationMs = Date.now() - started;
    return;
  }
  entry.status = outcome.status;
  entry.durationMs = Date.now() - started;
  if (outgoing.destroyed || outgoing.writableEnded) return;
  const payload = JSON.stringify(outcome.body);
  outgoing.writeHead(outcome.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers });
  outgoing.end(payload);
}

async function answer({
  context,
  incoming,
  entry,
  bodyText,
  setRateLimitHeaders,
}: {
  context: ChatCompletionsContext;
  incoming: IncomingMessage;
  entry: ChatRequestRecord;
  bodyText: string;
  setRateLimitHeaders: (headers: Record<string, string>) => void;
}): Promise<Outcome> {
  const requestId = entry.requestId ?? 'req_unknown';
  const runId = headerValue(incoming, HEADER_RUN_ID);
  const taken = context.faults.take({ runId });
  const fromHeader = taken.fault ? { fault: undefined, problem: null } : context.headerFault(headerValue(incoming, HEADER_FAULT), runId);
  if (fromHeader.problem) return invalid(fromHeader.problem);
  const fault = taken.fault ?? fromHeader.fault;
  entry.fault = fault?.kind ?? null;

  let delayMs = context.baseLatencyMs() + taken.latencyMs;
  if (fault?.kind === 'slow' || fault?.kind === 'latency') delayMs += fault.kind === 'slow' ? fault.delayMs : (fault.delayMs ?? 0);
  const stall = fault?.kind === 'stream_stall' ? { afterEvents: fault.afterEvents ?? 1, stallMs: fault.stallMs ?? DEFAULT_STALL_MS } : undefined;
  if (fault?.kind === 'connection_reset') return { kind: 'reset' };
  if (delayMs > 0) await sleep(delayMs, undefined, { signal: context.signal });
  if (fault) {
    const faulted = faultAnswer({ fault, requestId, now: context.clock() });
    if (faulted) {
      const mapped = chatErrorAnswerOf({ answer: faulted });
      return { kind: 'json', ...mapped };
    }
  }

  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch {
    // The OpenAI API's answer to a body that is not JSON.
    return invalid(
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. " +
        'The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, ' +
        'please contact us through our help center at help.openai.com.)',
    );
  }
  const parsedRequest = parseChatCompletionsRequest({ body: json });
  // The server's tool parser (x-buildfleet-tool-parser) may refuse the tool_choice, as vLLM does
  // without one, or leave the model free to call with every call written as text.
  const parserTurn = toolParserTurn({
    setting: parseToolParserHeader(headerValue(incoming, HEADER_TOOL_PARSER)),
    toolChoice: parsedRequest.toolChoice,
    toolCount: parsedRequest.tools.length,
  });
  const chatRequest = { ...parsedRequest, toolChoice: parserTurn.toolChoice };
  const request = buildMessagesRequest({ request: chatRequest });
  if (fault?.kind === 'stream_error' && !request.stream) return { kind: 'json', ...chatErrorAnswerOf({ answer: streamErrorAnswer({ fault, requestId }) }) };

  const scenarioHeader = headerValue(incoming, HEADER_SCENARIO)?.trim() || 'happy';
  if (!isScenarioName(scenarioHeader)) return invalid(`${HEADER_SCENARIO}: unknown scenario "${scenarioHeader}"; known: ${SCENARIO_NAMES.join(', ')}`);
  entry.scenario = scenarioHeader;
  const modeHeader = headerValue(incoming, HEADER_TEXT_CALLS)?.trim().toLowerCase() || 'on';
  if (!(TEXT_CALL_MODES as readonly string[]).includes(modeHeader)) return invalid(`${HEADER_TEXT_CALLS}: expected one of ${TEXT_CALL_MODES.join(', ')}`);
  const textFormat = chatTextFormat({ header: headerValue(incoming, HEADER_TEXT_FORMAT), model: chatRequest.model, request, seed: context.seed });

  // Admission by the shared buckets, as on /v1/messages: the prompt cache decides the input tokens.
  const { cachePlan, admission } = admitRequest({ request, apiKey: apiKeyOf(incoming), promptCache: context.promptCache, rateLimiter: context.rateLimiter });
  const promptUsage = cachePlan.usage;
  setRateLimitHeaders(openAIRateLimitHeaders({ anthropicHeaders: admission.headers, now: context.clock() }));
  if (!admission.admitted) {
    return { kind: 'json', ...rateLimitedAnswer({ model: request.model, limiterMessage: admission.message, retryAfterSeconds: admission.retryAfterSeconds }) };
  }

  const memoryKey = runId ? `${runId}\u0000${scenarioHeader}` : null;
  const plan = respondToMessages({
    request,
    scenario: scenarioHeader,
    // Without a parser every call the model makes is text; x-buildfleet-text-calls is then moot.
    textCallMode: parserTurn.callsAsText ? 'always' : (modeHeader as TextCallMode),
    textCallTable: context.textCallTable,
    textFormat,
    seed: context.seed,
    scenarioFiredForRun: memoryKey !== null && context.scenarioFired(memoryKey),
    site: context.site,
  });
  if (plan.firesOncePerRun && memoryKey !== null) context.rememberScenarioFired(memoryKey);
  const binding = { producer: request.modelDescription.id, bindingBase: request.bindingBase, messages: request.bindingMessages };
  const rendered = createAssistantMessage({
    plan,
    model: request.model,
    modelDescription: request.modelDescription,
    maxTokens: request.maxTokens,
    signer: context.signer,
    promptUsage,
    binding,
  });
  admission.reservation.settle({ outputTokens: rendered.body.usage.output_tokens });
  const chatAnswer = createChatAnswer({ rendered, plan, model: request.model, now: context.clock() });
  entry.stopReason = chatAnswer.finishReason;
  entry.source = plan.source;
  entry.usage = rendered.body.usage;
  const timing = drawAnswerTiming({
    profile: context.profile,
    ...(context.ttftMs !== undefined ? { ttftMs: context.ttftMs } : {}),
    ...(context.tokensPerSecond !== undefined ? { tokensPerSecond: context.tokensPerSecond } : {}),
    seed: context.seed,
    transcriptHash: hashTranscript({ messages: request.messages, toolNames: request.toolNames }),
  });
  const outputTokens = rendered.body.usage.output_tokens;
  if (request.stream) {
    return {
      kind: 'stream',
      headers: {},
      write: async (outgoing, headers) => {
        // The cache entries become readable as the response begins (as on /v1/messages).
        cachePlan.commit();
        const streamError = fault?.kind === 'stream_error' ? streamErrorPlanOf({ fault }) : undefined;
        return streamChatCompletion({
          outgoing,
          headers,
          answer: chatAnswer,
          outputTokens,
          includeUsage: chatRequest.includeUsage,
          timing,
          streamError,
          stall,
          signal: context.signal,
        });
      },
    };
  }
  const waitMs = generationTimeMs({ timing, outputTokens }) + (stall?.stallMs ?? 0);
  if (waitMs > 0) await sleep(waitMs, undefined, { signal: context.signal });
  cachePlan.commit();
  return { kind: 'json', status: 200, body: chatCompletionBody(chatAnswer), headers: {} };
}
