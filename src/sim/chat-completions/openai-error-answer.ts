// The simulator's errors (faults, rate limits, mid-stream errors) in the OpenAI API's shapes. The
// status decides the client's error class and whether it retries (openai-node src/client.ts
// `shouldRetry`: 408, 409, 429 and >= 500 are retried, `x-should-retry` overrides; `retry-after-ms`
// and `retry-after` set the wait), so statuses and those headers pass through, except:
// - overloaded (Anthropic's 529) → 503: OpenAI answers "503 - The engine is currently overloaded,
//   please try again later" (docs guides/error-codes); Ollama answers 503 "server busy" when its
//   queue is full (OLLAMA_MAX_QUEUE) and llama.cpp's server 503 while loading. vLLM queues instead
//   of refusing, so an overload fault stands for the first three.
// - a 429 rate limit carries code `rate_limit_exceeded` and type `requests` or `tokens`, like
//   OpenAI's "Rate limit reached for … on tokens per min (TPM)"; a spend cap is OpenAI's
//   `insufficient_quota` 429 ("You exceeded your current quota, please check your plan and billing details.").
import type { ApiErrorBody, ApiErrorType } from '../api-error.js';
import type { FaultAnswer } from '../fault-response.js';
import { createOpenAIErrorBody, type OpenAIErrorBody, type OpenAIErrorObject } from './openai-error.js';

export interface ChatErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: OpenAIErrorBody;
}

const OVERLOADED_STATUS = 503;

/** The OpenAI error object for an error the Messages endpoint would send as `type`. */
export function openAIErrorFor({
  type,
  message,
  details,
}: {
  type: ApiErrorType;
  message: string;
  details?: Record<string, unknown> | undefined;
}): OpenAIErrorObject {
  switch (type) {
    case 'rate_limit_error':
      if (details?.error_code === 'enforced_spend_limit_reached') {
        return {
          message: 'You exceeded your current quota, please check your plan and billing details.',
          type: 'insufficient_quota',
          param: null,
          code: 'insufficient_quota',
        };
      }
      return { message, type: 'requests', param: null, code: 'rate_limit_exceeded' };
    case 'authentication_error':
      return { message, type: 'invalid_request_error', param: null, code: 'invalid_api_key' };
    case 'not_found_error':
      return { message, type: 'invalid_request_error', param: null, code: 'not_found' };
    case 'overloaded_error':
    case 'api_error':
      return { message, type: 'server_error', param: null, code: null };
    case 'permission_error':
    case 'invalid_request_error':
    case 'request_too_large':
      return { message, type: 'invalid_request_error', param: null, code: null };
    default:
      return { message, type: 'server_error', param: null, code: null };
  }
}

/** A fault's HTTP answer (fault-response.ts, stream-error-fault.ts) as the chat endpoint sends it. */
export function chatErrorAnswerOf({
  answer,
}: {
  answer: FaultAnswer | { status: number; headers: Record<string, string>; body: ApiErrorBody };
}): ChatErrorAnswer {
  const { type, message, details } = answer.body.error;
  return {
    status: answer.status === 529 ? OVERLOADED_STATUS : answer.status,
    headers: { ...answer.headers },
    body: createOpenAIErrorBody(openAIErrorFor({ type, message, details })),
  };
}

/** The 429 for a request the rate limiter did not admit, worded like OpenAI's. */
export function rateLimitedAnswer({
  model,
  limiterMessage,
  retryAfterSeconds,
}: {
  model: string;
  limiterMessage: string;
  retryAfterSeconds: number;
}): ChatErrorAnswer {
  const exceeded = /rate limit of ([\d,]+) (requests|input tokens|output tokens) per minute/.exec(limiterMessage);
  const dimension = exceeded?.[2] === 'requests' ? 'requests' : 'tokens';
  const limit = exceeded?.[1]?.replaceAll(',', '') ?? '?';
  const unit = dimension === 'requests' ? 'requests per min (RPM)' : 'tokens per min (TPM)';
  const message =
    `Rate limit reached for ${model} in organization org-simulated on ${unit}: Limit ${limit}. ` +
    `Please try again in ${retryAfterSeconds}s. Visit https://platform.openai.com/account/rate-limits to learn more.`;
  return {
    status: 429,
    headers: { 'retry-after': String(retryAfterSeconds) },
    body: createOpenAIErrorBody({ message, type: dimension, param: null, code: 'rate_limit_exceeded' }),
  };
}
