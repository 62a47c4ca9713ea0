// What a failed OpenAI-compatible call was, in the shape classifyModelError takes
// (src/model/classify-model-error.ts), so the queue retries, pauses and fails runs exactly as it
// does for Claude. The statuses and codes are OpenAI's (docs platform.openai.com/docs/guides/
// error-codes, "API errors"); vLLM, llama.cpp's server, Ollama and SGLang answer the same body shape
// ({error: {message, type, code, param}}). docs/providers.md has the table.
import OpenAI from 'openai';
import type { ModelCallFailure } from '../model/classify-model-error.js';
import { ModelStreamIdleError, ModelStreamIncompleteError } from '../model/model-client.js';
import { normalizeOpenAiHeaders } from './openai-rate-limit-headers.js';

/**
 * The Messages API error type each status stands for, so an OpenAI-compatible failure lands on the
 * same retry class and run error code (`model_<type>`) as Claude's of that status. 503 is
 * `overloaded_error`: OpenAI answers it for "The engine is currently overloaded" and "Slow Down"
 * (guides/error-codes), and a self-hosted server's 503 is the one server every worker shares
 * refusing work (vLLM while it starts or sleeps, llama.cpp's server while it loads the model: "503
 * Loading model"), so every worker backs off together (model-call-pause.ts), as for a 529. 500, 502
 * and 504 stay `transient`: one request failed, the next may not.
 */
const ERROR_TYPE_OF_STATUS: Readonly<Record<number, string>> = Object.freeze({
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  // vLLM and some gateways answer a request that fails validation with 422.
  422: 'invalid_request_error',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'overloaded_error',
});

/** The prompt did not fit the model's context: OpenAI's code, llama.cpp's type, and the messages
 * of vLLM ("This model's maximum context length is …") and others that carry neither. */
function isContextOverflow(code: unknown, type: unknown, message: string): boolean {
  return (
    code === 'context_length_exceeded' ||
    type === 'exceed_context_size_error' ||
    /maximum context length|context length exceeded|exceeds the available context size/i.test(message)
  );
}

export function describeOpenAiCompatibleError(error: unknown): ModelCallFailure {
  if (error instanceof ModelStreamIdleError || error instanceof ModelStreamIncompleteError) {
    return { connectionFailure: true, message: error.message, requestId: error.requestId };
  }
  // Refused connections, resets, and the connect timeout (APIConnectionTimeoutError extends it).
  if (error instanceof OpenAI.APIConnectionError) return { connectionFailure: true, message: error.message };
  if (error instanceof OpenAI.APIError) {
    const body = (error.error ?? {}) as { message?: unknown; type?: unknown; code?: unknown };
    const message = typeof body.message === 'string' ? body.message : error.message;
    // An error sent inside a 200 stream (core/streaming.ts: `if (data && data.error) throw new
    // APIError(undefined, data.error, …)`) has no status; servers put it in `code` (vLLM, llama.cpp).
    const midStream = error.status === undefined;
    const status = error.status ?? (typeof body.code === 'number' && body.code >= 400 && body.code <= 599 ? body.code : undefined);
    const errorCode = isContextOverflow(body.code, body.type, message) ? 'context_length_exceeded' : typeof body.code === 'string' ? body.code : undefined;
    const errorType = status !== undefined ? (ERROR_TYPE_OF_STATUS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error')) : undefined;
    return {
      status,
      // The headers of a mid-stream error are the 200's, saying nothing of the error.
      headers: midStream ? undefined : (normalizeOpenAiHeaders(error.headers) ?? undefined),
      errorType,
      errorCode,
      message,
      requestId: error.requestID ?? null,
    };
  }
  // The SDK's own errors (a chunk that is not JSON, a stream cut short): no complete answer.
  return { connectionFailure: true, message: error instanceof Error ? error.message : String(error) };
}
