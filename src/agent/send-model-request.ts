// The model call itself (call-model-for-turn.ts): the request as the provider takes it — prompt-
// cache breakpoints on a copy, thinking, stop sequences, the run's headers — sent inside a GenAI
// client span that records the answer's model, id, finish reason and usage.
import type { ModelResponse } from '../domain/model-message.js';
import { totalInputTokens } from '../domain/usage.js';
import type { ModelStreamProgress } from '../model/model-client.js';
import { placeCacheBreakpoints } from '../model/place-cache-breakpoints.js';
import { GEN_AI_PROVIDER_NAMES } from '../providers/model-provider.js';
import { inSpan, SpanKind } from '../telemetry/tracing.js';
import { SPAN_ATTRIBUTES, SPAN_NAMES } from '../telemetry/span-attributes.js';
import { TOOL_CHANGES_BETA } from './phase-tools.js';
import { DEFAULT_STOP_SEQUENCES } from './stop-reason-handler.js';
import type { TurnRequest } from './build-turn-request.js';
import type { TurnContext } from './turn-context.js';

/** What the call learned as it went: the request id once connected (a failure reports it too), and
 * when the first token arrived (performance.now(); null until it has). */
export interface ModelCallProgress {
  requestId: string | null;
  firstTokenAt: number | null;
  onProgress: (progress: ModelStreamProgress) => void;
  /** Aborts the call: the run ended while it streamed (watch-run-end.ts). */
  signal?: AbortSignal;
}

/** Sends the turn's request: the answer, with its response headers (anthropic-ratelimit-*) for the admission limiter. */
export async function sendModelRequest({
  context,
  request,
  call,
}: {
  context: TurnContext;
  request: TurnRequest;
  call: ModelCallProgress;
}): Promise<{ response: ModelResponse; headers: Headers | null; headersReceivedAt: number | null }> {
  const { deps, run, runId, provider, capabilities, messages } = context;
  const { system, tools, toolChoice, thinkingRequest, callMaxTokens } = request;
  const thinking = thinkingRequest.thinking;
  const headers: Record<string, string> = { 'x-buildfleet-run-id': runId };
  if (context.layout === 'declared_once') headers['anthropic-beta'] = TOOL_CHANGES_BETA;
  if (run.options.scenario) headers['x-buildfleet-scenario'] = run.options.scenario;
  const body = {
    model: run.model,
    maxTokens: callMaxTokens,
    // Prompt-cache breakpoints, on a copy: the stored transcript never carries one.
    ...(deps.config.BUILDFLEET_PROMPT_CACHING
      ? placeCacheBreakpoints({ tools: tools.definitions, system, messages, ttl: request.cacheTtl })
      : { system, messages, tools: tools.definitions }),
    toolChoice,
    ...(thinking ? { thinking } : {}),
    ...(thinkingRequest.outputConfig ? { outputConfig: thinkingRequest.outputConfig } : {}),
    ...(thinkingRequest.betas.length > 0 ? { betas: thinkingRequest.betas } : {}),
    stopSequences: Object.keys(DEFAULT_STOP_SEQUENCES),
    headers,
    tokenizer: capabilities.tokenizer,
    ...(call.signal ? { signal: call.signal } : {}),
  };
  const attributes = {
    [SPAN_ATTRIBUTES.operationName]: 'chat',
    [SPAN_ATTRIBUTES.providerName]: GEN_AI_PROVIDER_NAMES[provider.kind],
    [SPAN_ATTRIBUTES.providerConfigName]: provider.name,
    [SPAN_ATTRIBUTES.requestModel]: run.model,
    [SPAN_ATTRIBUTES.requestMaxTokens]: callMaxTokens,
    [SPAN_ATTRIBUTES.toolCount]: tools.names.length,
  };
  return inSpan(SPAN_NAMES.chat(run.model), { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const {
      response: answer,
      headers: responseHeaders,
      headersReceivedAt,
    } = await provider.call(body, {
      idleTimeoutMs: deps.config.BUILDFLEET_MODEL_IDLE_TIMEOUT_MS,
      progressIntervalMs: deps.config.BUILDFLEET_MODEL_PROGRESS_INTERVAL_MS,
      onProgress: call.onProgress,
      onFirstToken: () => {
        call.firstTokenAt ??= performance.now();
      },
      onConnect: (id) => {
        call.requestId = id;
        if (id) span.setAttribute(SPAN_ATTRIBUTES.requestId, id);
      },
    });
    span.setAttributes({
      [SPAN_ATTRIBUTES.responseModel]: answer.model,
      [SPAN_ATTRIBUTES.responseId]: answer.id,
      [SPAN_ATTRIBUTES.responseFinishReasons]: [answer.stop_reason ?? 'null'],
      // gen_ai.usage.input_tokens includes the cached parts (OTel GenAI conventions:
      // cache reads and writes "SHOULD be included in gen_ai.usage.input_tokens").
      [SPAN_ATTRIBUTES.usageInputTokens]: totalInputTokens(answer.usage),
      [SPAN_ATTRIBUTES.usageCacheReadInputTokens]: answer.usage.cache_read_input_tokens,
      [SPAN_ATTRIBUTES.usageCacheCreationInputTokens]: answer.usage.cache_write_5m_input_tokens + answer.usage.cache_write_1h_input_tokens,
      [SPAN_ATTRIBUTES.usageOutputTokens]: answer.usage.output_tokens,
    });
    return { response: answer, headers: responseHeaders, headersReceivedAt };
  });
}
