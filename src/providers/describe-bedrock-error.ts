// What a failed Claude-on-Bedrock call was, for classifyModelError. The Bedrock SDK throws the
// Anthropic SDK's APIError, but Bedrock's errors are not Anthropic's: an HTTP error has body
// `{"message": "…"}` and the exception named in `x-amzn-errortype`
// (`ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/`; AWS API reference
// InvokeModel / InvokeModelWithResponseStream, "Errors"), and an exception frame inside the stream
// arrives as an `error` event typed by the camel-cased name (bedrock-sdk core/streaming.ts
// frameError). describeModelError alone finds no Anthropic `error.type` in either, so every such
// failure would end a run as plain `model_error`. Each exception is read as the Anthropic error
// type of the same meaning, so it gets the same retry class and run error code as on the Messages
// API (docs/providers.md, "Bedrock's errors").
import Anthropic from '@anthropic-ai/sdk';
import type { ModelCallFailure } from '../model/classify-model-error.js';
import { describeModelError } from '../model/model-client.js';
import { headerValue } from '../model/rate-limit-headers.js';

/** Bedrock exception → Anthropic error type (api/errors), by what each means (InvokeModel "Errors"). */
const ERROR_TYPE_OF_EXCEPTION: Readonly<Record<string, string>> = Object.freeze({
  // "The input fails to satisfy the constraints specified by Amazon Bedrock" (400).
  ValidationException: 'invalid_request_error',
  // "The request is denied because you do not have sufficient permissions" (403).
  AccessDeniedException: 'permission_error',
  // "The specified resource ARN was not found" (404): the model or inference profile.
  ResourceNotFoundException: 'not_found_error',
  // "Your request was denied due to exceeding the account quotas" (429).
  ThrottlingException: 'rate_limit_error',
  // "The service isn't currently available" (503): Bedrock's form of 529 overloaded.
  ServiceUnavailableException: 'overloaded_error',
  // "An internal server error occurred" (500).
  InternalServerException: 'api_error',
  // "The request took too long to process" (408).
  ModelTimeoutException: 'timeout_error',
});

/** The Bedrock exception's name: from `x-amzn-errortype` for an HTTP error, from the error event's
 * type (camel-cased) for one inside the stream. */
function exceptionName(failure: ModelCallFailure): string | null {
  const named = failure.status === undefined ? failure.errorType : headerValue(failure.headers, 'x-amzn-errortype')?.split(':')[0];
  if (!named) return null;
  return named.charAt(0).toUpperCase() + named.slice(1);
}

export function describeBedrockError(error: unknown): ModelCallFailure {
  const failure = describeModelError(error);
  if (failure.connectionFailure) return failure;
  const exception = exceptionName(failure);
  const errorType = exception === null ? undefined : ERROR_TYPE_OF_EXCEPTION[exception];
  // An HTTP error's body is Bedrock's `{message}`, which the SDK's message prefixes with the status.
  const body = error instanceof Anthropic.APIError ? (error.error as { message?: unknown } | undefined) : undefined;
  const message = failure.status !== undefined && typeof body?.message === 'string' ? body.message : failure.message;
  return { ...failure, message, ...(errorType ? { errorType } : {}) };
}
