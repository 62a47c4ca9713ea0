// Classifies anything thrown while answering a request into one registry error, in one place:
// our own ApiErrors pass through, Fastify's FST_* errors and body-parsing failures become the
// matching 4xx, and everything else is internal_error with a message that carries no internals.
import { ApiError, apiErrors } from './api-errors.js';

interface ErrorLike {
  code?: unknown;
  statusCode?: unknown;
}

/** The ApiError to answer for a thrown value. */
export function toApiError(error: unknown): ApiError {
  if (ApiError.isInstance(error)) return error;
  const { code, statusCode } = (typeof error === 'object' && error !== null ? error : {}) as ErrorLike;
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return apiErrors.bodyTooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
    case 'FST_ERR_CTP_EMPTY_TYPE':
      return apiErrors.unsupportedMediaType();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return apiErrors.invalidBody('body: Required: send a JSON object');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return apiErrors.invalidBody('body: Invalid JSON');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return apiErrors.badRequest('Content-Length does not match the body.');
    case 'FST_ERR_BAD_URL':
      return apiErrors.badRequest('The URL is malformed.');
    case 'FST_ERR_NOT_FOUND':
      return apiErrors.notFound();
  }
  if (error instanceof SyntaxError) return apiErrors.invalidBody('body: Invalid JSON');
  if (typeof statusCode === 'number') {
    if (statusCode === 413) return apiErrors.bodyTooLarge();
    if (statusCode === 415) return apiErrors.unsupportedMediaType();
    if (statusCode === 404) return apiErrors.notFound();
    // Some other client error from Fastify or Node (e.g. a malformed header): say so without
    // echoing a message we did not write.
    if (statusCode >= 400 && statusCode < 500) return apiErrors.badRequest();
  }
  return apiErrors.internalError();
}
