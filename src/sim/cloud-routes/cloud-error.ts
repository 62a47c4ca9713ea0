// Errors in each cloud's own shape, so the SDK clients meet what they meet in production.
//
// Bedrock (restJson1, AWS API reference InvokeModel "Errors" and the Bedrock user guide's
// "Troubleshooting Amazon Bedrock API Error Codes"): the HTTP status of the exception, header
// `x-amzn-errortype: {Name}:http://internal.amazon.com/coral/com.amazon.bedrock/`, body
// `{"message": "…"}`. The Bedrock SDK hands that to the Anthropic base client, which throws an
// APIError of that status with the body as `error` (no Anthropic `error.type`).
//
// Vertex AI: errors of the Anthropic model come back in the Anthropic envelope; errors of Google's
// front end (authentication, quota) in Google's: `{"error": {"code": 429, "message": "Quota
// exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model with base
// model: anthropic-claude-…", "status": "RESOURCE_EXHAUSTED"}}` (as reported in
// anthropics/claude-code#1440 and anthropics/anthropic-sdk-python#963).
import type { ApiErrorBody } from '../api-error.js';

export interface CloudErrorAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** Bedrock's exception for an Anthropic status, and the status Bedrock answers it with. The
 * Anthropic 529 overloaded_error has no Bedrock counterpart of its own: capacity trouble arrives as
 * ServiceUnavailableException, 503 ("The service isn't currently available"). */
export function bedrockExceptionFor(status: number): { name: string; status: number } {
  if (status === 400 || status === 413) return { name: 'ValidationException', status: 400 };
  if (status === 401 || status === 403) return { name: 'AccessDeniedException', status: 403 };
  if (status === 404) return { name: 'ResourceNotFoundException', status: 404 };
  if (status === 408 || status === 504) return { name: 'ModelTimeoutException', status: 408 };
  if (status === 429) return { name: 'ThrottlingException', status: 429 };
  if (status === 503 || status === 529) return { name: 'ServiceUnavailableException', status: 503 };
  return { name: 'InternalServerException', status: 500 };
}

export function bedrockError({ name, status, message, requestId }: { name: string; status: number; message: string; requestId: string }): CloudErrorAnswer {
  return {
    status,
    body: { message },
    headers: { 'x-amzn-errortype': `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/`, 'x-amzn-requestid': requestId },
  };
}

const GOOGLE_STATUS: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

export function googleError({ status, message }: { status: number; message: string }): CloudErrorAnswer {
  return { status, body: { error: { code: status, message, status: GOOGLE_STATUS[status] ?? 'UNKNOWN' } }, headers: {} };
}

function messageOf(body: unknown): string {
  const error = (body as Partial<ApiErrorBody> | null)?.error;
  return typeof error?.message === 'string' ? error.message : 'The request failed.';
}

/** A Messages error answer as the cloud sends it. */
export function cloudErrorAnswer({
  provider,
  status,
  body,
  requestId,
  model,
}: {
  provider: 'bedrock' | 'vertex';
  status: number;
  body: unknown;
  requestId: string;
  model: string;
}): CloudErrorAnswer {
  if (provider === 'bedrock') {
    const exception = bedrockExceptionFor(status);
    const message = status === 429 ? 'Too many tokens, please wait before trying again.' : messageOf(body);
    return bedrockError({ ...exception, message, requestId });
  }
  if (status === 429) {
    return googleError({
      status,
      message:
        `Quota exceeded for aiplatform.googleapis.com/online_prediction_input_tokens_per_minute_per_base_model with base model: ` +
        `anthropic-${model.replace(/@.*$/, '')}. Please submit a quota increase request. ` +
        `https://cloud.google.com/vertex-ai/docs/generative-ai/quotas-genai.`,
    });
  }
  return { status, body, headers: {} };
}
