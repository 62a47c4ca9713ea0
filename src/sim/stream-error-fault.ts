// The `stream_error` fault: a mid-stream `event: error` for a streamed answer (stream-message.ts),
// the HTTP error of the same type for a non-streaming one, which has no stream to break.
import { createApiErrorBody, type ApiErrorType } from './api-error.js';
import type { FaultAnswer } from './fault-response.js';
import type { FaultSpec } from './fault-spec.js';
import type { StreamErrorPlan } from './stream-message.js';

type StreamErrorFault = Extract<FaultSpec, { kind: 'stream_error' }>;

/** docs api/errors: the HTTP status each error type comes with. */
const STATUS_BY_TYPE: Partial<Record<ApiErrorType, number>> = {
  overloaded_error: 529,
  api_error: 500,
  rate_limit_error: 429,
  invalid_request_error: 400,
};

/** The real API's default messages for these errors ("Overloaded" is what its error events say). */
const DEFAULT_MESSAGE: Partial<Record<ApiErrorType, string>> = {
  overloaded_error: 'Overloaded',
  api_error: 'Internal server error',
  rate_limit_error: 'Rate limited',
  invalid_request_error: 'Invalid request',
};

/** Where and how the stream breaks. */
export function streamErrorPlanOf({ fault }: { fault: StreamErrorFault }): StreamErrorPlan {
  const errorType = fault.errorType ?? 'overloaded_error';
  return {
    errorType,
    message: fault.message ?? DEFAULT_MESSAGE[errorType] ?? 'Error',
    ...(fault.afterTokens !== undefined ? { afterTokens: fault.afterTokens } : {}),
    ...(fault.afterEvents !== undefined ? { afterEvents: fault.afterEvents } : {}),
  };
}

/** The answer to a non-streaming request that drew a stream_error fault. */
export function streamErrorAnswer({ fault, requestId }: { fault: StreamErrorFault; requestId: string }): FaultAnswer {
  const plan = streamErrorPlanOf({ fault });
  return {
    status: STATUS_BY_TYPE[plan.errorType] ?? 500,
    headers: {},
    body: createApiErrorBody({ type: plan.errorType, message: plan.message, requestId }),
  };
}
