import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { modelErrorCode, RUN_ERROR_CODES } from './run-outcomes.js';

describe('run error codes', () => {
  it('are each documented in docs/run-states.md', () => {
    const docs = readFileSync(new URL('../../docs/run-states.md', import.meta.url), 'utf8');
    const missing = Object.keys(RUN_ERROR_CODES).filter((code) => !docs.includes(`| \`${code}\` |`));
    expect(missing).toEqual([]);
  });

  it('map the API error types onto a closed set', () => {
    expect(modelErrorCode('invalid_request_error')).toBe('model_invalid_request_error');
    expect(modelErrorCode('a_type_from_the_future')).toBe('model_error');
    expect(modelErrorCode(undefined)).toBe('model_error');
  });
});
