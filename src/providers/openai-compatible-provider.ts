// OpenAI-compatible chat completions behind the provider interface: vLLM, llama.cpp's server,
// Ollama, SGLang, and OpenAI itself with `maxTokensField: 'max_completion_tokens'` for its
// reasoning models and no `extraBody` (docs/providers.md), through the `openai` SDK. Like the Anthropic client
// (model-client.ts): the SDK's retries are off so every retry goes through the queue, its timeout
// bounds the wait for the response headers only (client.ts fetchWithTimeout clears it when fetch
// resolves), and the streamed answer is judged by silence (stream-idle-watchdog.ts), never length.
import OpenAI from 'openai';
import { z } from 'zod';
import { httpUrlSchema } from './http-url-schema.js';
import { estimatePromptTokens } from '../model/estimate-prompt-tokens.js';
import {
  ModelStreamIdleError,
  ModelStreamIncompleteError,
  notePaidUsageOfFailedCall,
  requestTokenizer,
  type ModelStreamProgress,
} from '../model/model-client.js';
import { estimateTextTokens, type Tokenizer } from '../domain/estimate-text-tokens.js';
import { createStreamIdleWatchdog } from '../model/stream-idle-watchdog.js';
import type { ModelProvider } from './model-provider.js';
import { addChatChunk, emptyChatAnswer, toModelResponseOfChat, usageOfChatAnswer } from './openai-chat-answer.js';
import { FLEET_SET_BODY_FIELDS, MAX_TOKENS_FIELDS, toChatCompletionRequest } from './openai-chat-request.js';
import { describeOpenAiCompatibleError } from './openai-error.js';
import { nestTopLevelErrorBody } from './nest-top-level-error-body.js';
import { normalizeOpenAiHeaders } from './openai-rate-limit-headers.js';

export const openAiCompatibleProviderOptionsSchema = z
  .object({
    /** The server's OpenAI API root, `/v1` included (vLLM `http://host:8000/v1`, Ollama
     * `http://host:11434/v1`, llama.cpp's server `http://host:8080/v1`). */
    baseUrl: httpUrlSchema,
    /** Sent as `Authorization: Bearer`; local servers ignore it (vLLM checks it only with --api-key). */
    apiKey: z.string().min(1).optional(),
    /** Fleet model id → the id the server serves (`--served-model-name`, Ollama's tag…). */
    modelIds: z.record(z.string().min(1), z.string().min(1)).optional(),
    /** Extra headers on every request (a gateway's routing or auth header). */
    headers: z.record(z.string().min(1), z.string()).optional(),
    /** Merged into every request body: a server's own parameters (vLLM's `skip_special_tokens`,
     * docs/providers.md). The fields the fleet sets are refused: the turn's decisions rest on them. */
    extraBody: z
      .record(z.string().min(1), z.unknown())
      .superRefine((body, context) => {
        for (const field of FLEET_SET_BODY_FIELDS) {
          if (Object.hasOwn(body, field))
            context.addIssue({
              code: 'custom',
              path: [field],
              message: `is set by the fleet on every request and cannot be overridden (fields the fleet sets: ${FLEET_SET_BODY_FIELDS.join(', ')})`,
            });
        }
      })
      .optional(),
    /** The body field of the output limit (openai-chat-request.ts MAX_TOKENS_FIELDS): `max_tokens`
     * (default; Ollama reads no other) or `max_completion_tokens` (OpenAI's o-series and gpt-5
     * refuse `max_tokens`). */
    maxTokensField: z.enum(MAX_TOKENS_FIELDS).default('max_tokens'),
    /** Whether the server turns the model's calls into native `tool_calls` (vLLM started with
     * `--enable-auto-tool-choice --tool-call-parser <name>`; default true). false: a turn the fleet
     * leaves to the model is sent as `tool_choice: "none"`, the tools still in the prompt, and the
     * model's calls come back as text for the fleet's recovery (docs/providers.md, "Servers without
     * a tool parser"); vLLM refuses `auto` without a parser. */
    toolParser: z.boolean().default(true),
  })
  .strict();
export type OpenAiCompatibleProviderOptions = z.infer<typeof openAiCompatibleProviderOptionsSchema>;

/** The id a fleet model is called as on the server. */
export function openAiCompatibleModelId(options: Pick<OpenAiCompatibleProviderOptions, 'modelIds'>, fleetModel: string): string {
  return options.modelIds?.[fleetModel] ?? fleetModel;
}

export function createOpenAiCompatibleProvider({
  name,
  options,
  limiterIdentity,
  connectTimeoutMs,
  fetch: baseFetch = globalThis.fetch,
}: {
  name: string;
  options: OpenAiCompatibleProviderOptions;
  /** Whose limits its calls count against (provider-limiter-identity.ts). */
  limiterIdentity: string;
  connectTimeoutMs: number;
  /** The fetch under the idle watchdog (tests bend it; default the global one). */
  fetch?: typeof globalThis.fetch;
}): ModelProvider {
  const client = new OpenAI({
    // The SDK refuses to start without a key; local servers need none.
    apiKey: options.apiKey ?? 'no-key',
    baseURL: options.baseUrl,
    maxRetries: 0,
    timeout: connectTimeoutMs,
    ...(options.headers ? { defaultHeaders: options.headers } : {}),
  });
  return {
    name,
    kind: 'openai_compatible',
    limiterIdentity,
    describeError: describeOpenAiCompatibleError,
    async call(request, callOptions) {
      const model = openAiCompatibleModelId(options, request.model);
      const watchdog = createStreamIdleWatchdog({ idleTimeoutMs: callOptions.idleTimeoutMs, outer: request.signal });
      // The SDK has no middleware: a client copy per call whose fetch hands the response to this
      // call's watchdog (withOptions shares everything else), an error body nested first.
      const watched = client.withOptions({ fetch: async (input, init) => watchdog.watch(await nestTopLevelErrorBody(await baseFetch(input, init))) });
      const tokenizer = requestTokenizer(request);
      const estimate = {
        promptTokens: estimatePromptTokens({ system: request.system, tools: request.tools, messages: request.messages, tokenizer }),
        tokenizer,
      };
      const answer = emptyChatAnswer();
      const progress = createChatProgress(callOptions.progressIntervalMs ?? 2000, tokenizer);
      let requestId: string | null = null;
      let headers: Headers | null = null;
      let headersReceivedAt: number | null = null;
      try {
        // Every simulator and gateway header (x-buildfleet-*) rides on the request as on Claude's.
        const {
          data: stream,
          response,
          request_id,
        } = await watched.chat.completions
          .create(toChatCompletionRequest(request, model, options), { headers: request.headers, signal: watchdog.signal })
          .withResponse();
        requestId = request_id ?? null;
        headers = normalizeOpenAiHeaders(response.headers);
        headersReceivedAt = Date.now();
        callOptions.onConnect?.(requestId);
        for await (const chunk of stream) {
          // The first chunk is the first generated token: a chat completion has no message_start.
          if (answer.chunks === 0) callOptions.onFirstToken?.();
          const added = addChatChunk(answer, chunk);
          const report = progress.observe(added);
          if (report) callOptions.onProgress?.(report);
        }
      } catch (error) {
        const failure = watchdog.fired ? new ModelStreamIdleError(callOptions.idleTimeoutMs, requestId) : error;
        // Once a chunk arrived the server was generating: the call is paid for (in GPU time at
        // least, and in tokens against the run's budgets), as a broken Claude stream is.
        if (answer.chunks > 0 && typeof failure === 'object' && failure !== null) notePaidUsageOfFailedCall(failure, usageOfChatAnswer(answer, estimate));
        throw failure;
      } finally {
        watchdog.stop();
      }
      const response = toModelResponseOfChat({ answer, stopSequences: request.stopSequences, estimate, fallbackModel: model });
      if (!response) {
        // The connection closed cleanly without a finish_reason, or the server aborted the request
        // (finish_reason `abort`): the answer is incomplete, and another attempt may complete it.
        const incomplete = new ModelStreamIncompleteError(
          answer.finishReason === null
            ? 'The chat completion stream ended without a finish_reason.'
            : `The server aborted the chat completion (finish_reason ${JSON.stringify(answer.finishReason)}).`,
          requestId,
        );
        if (answer.chunks > 0) notePaidUsageOfFailedCall(incomplete, usageOfChatAnswer(answer, estimate));
        throw incomplete;
      }
      return { response, requestId, headers, headersReceivedAt };
    },
  };
}

/** Progress of a streamed chat completion, as model-progress events report it (stream-progress.ts
 * does the same for Messages events): throttled, plus a report when a tool call starts. */
function createChatProgress(intervalMs: number, tokenizer: Tokenizer) {
  const started = performance.now();
  let lastReport = started;
  let characters = 0;
  let tools = 0;
  let tool: string | null = null;
  const report = (reason: ModelStreamProgress['reason'], blockKind: string): ModelStreamProgress => {
    lastReport = performance.now();
    return {
      outputTokens: estimateTextTokens({ characters, tokenizer }),
      estimated: true,
      blockKind,
      tool,
      blocks: tools + (characters > 0 ? 1 : 0),
      elapsedMs: Math.round(lastReport - started),
      reason,
    };
  };
  return {
    observe(added: ReturnType<typeof addChatChunk>): ModelStreamProgress | null {
      characters += added.characters;
      if (added.toolStarted) {
        tools += 1;
        tool = added.toolStarted;
        return report('tool_start', 'tool_use');
      }
      return performance.now() - lastReport >= intervalMs ? report('interval', tool ? 'tool_use' : 'text') : null;
    },
  };
}
