// The real API's error envelope: `{type: 'error', error: {type, message}, request_id}`. The SDK
// reads `error.type` into `APIError.type` and picks the error class from the HTTP status alone.

export type ApiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'overloaded_error';

export interface ApiErrorBody {
  type: 'error';
  error: { type: ApiErrorType; message: string; details?: Record<string, unknown> };
  request_id: string;
}

/** The error type the real API uses for an HTTP status. */
export function errorTypeForStatus({ status }: { status: number }): ApiErrorType {
  if (status === 400) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 529) return 'overloaded_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** Builds an error body in the real API's shape. */
export function createApiErrorBody({
  type,
  message,
  requestId,
  details,
}: {
  type: ApiErrorType;
  message: string;
  requestId: string;
  details?: Record<string, unknown>;
}): ApiErrorBody {
  return { type: 'error', error: details ? { type, message, details } : { type, message }, request_id: requestId };
}
