import { describe, expect, it } from 'vitest';
import { API_ERRORS, ApiError, apiErrorDefinition, apiErrors, createApiError, errorBodyOf } from './api-errors.js';

describe('API error registry', () => {
  it('builds errors with the registered code, status and a default or given message', () => {
    const error = apiErrors.idempotencyKeyConflict();
    expect(error).toBeInstanceOf(ApiError);
    expect(ApiError.isInstance(error)).toBe(true);
    expect(ApiError.isInstance(new Error('x'))).toBe(false);
    expect([error.code, error.statusCode]).toEqual(['idempotency_key_conflict', 422]);
    expect(apiErrors.invalidBody('body.prompt: Too small').message).toBe('body.prompt: Too small');
    expect(errorBodyOf(apiErrors.runNotFound())).toEqual({ error: { code: 'run_not_found', message: 'No such run.' } });
  });

  it('refuses to register a code twice', () => {
    expect(() => createApiError('invalid_body', 'again', 400, 'a second meaning')).toThrow(/registered twice/);
  });

  it('exports every factory as data', () => {
    expect(API_ERRORS.map((definition) => definition.code).sort()).toEqual(Object.values(apiErrors).map((factory) => factory.code).sort());
    expect(apiErrorDefinition('body_too_large').statusCode).toBe(413);
  });
});
