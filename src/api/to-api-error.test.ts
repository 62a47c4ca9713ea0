import { describe, expect, it } from 'vitest';
import { apiErrors } from './api-errors.js';
import { toApiError } from './to-api-error.js';

const fastifyError = (code: string, statusCode: number) => Object.assign(new Error(`${code} internals`), { code, statusCode });

describe('toApiError', () => {
  it('passes ApiErrors through', () => {
    const error = apiErrors.runNotFound();
    expect(toApiError(error)).toBe(error);
  });

  it('maps Fastify errors to registry codes', () => {
    expect(toApiError(fastifyError('FST_ERR_CTP_BODY_TOO_LARGE', 413)).code).toBe('body_too_large');
    expect(toApiError(fastifyError('FST_ERR_CTP_INVALID_MEDIA_TYPE', 415)).code).toBe('unsupported_media_type');
    expect(toApiError(fastifyError('FST_ERR_CTP_INVALID_JSON_BODY', 400)).code).toBe('invalid_body');
    expect(toApiError(fastifyError('FST_ERR_CTP_EMPTY_JSON_BODY', 400)).code).toBe('invalid_body');
    expect(toApiError(fastifyError('FST_ERR_BAD_URL', 400)).code).toBe('bad_request');
    expect(toApiError(new SyntaxError('Unexpected token')).code).toBe('invalid_body');
    expect(toApiError(fastifyError('SOMETHING_ELSE', 431)).code).toBe('bad_request');
  });

  it('answers internal_error for everything else, without the original message', () => {
    for (const thrown of [new Error('password=hunter2'), 'a string', null, undefined, { statusCode: 502 }]) {
      const mapped = toApiError(thrown);
      expect(mapped.code).toBe('internal_error');
      expect(mapped.statusCode).toBe(500);
      expect(mapped.message).not.toContain('hunter2');
    }
  });
});
