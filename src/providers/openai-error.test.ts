import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { classifyModelError } from '../model/classify-model-error.js';
import { ModelStreamIdleError } from '../model/model-client.js';
import { describeOpenAiCompatibleError } from './openai-error.js';
import { normalizeOpenAiHeaders, parseOpenAiDuration, rateLimitResetMs } from './openai-rate-limit-headers.js';

const apiError = (status: number | undefined, error: Record<string, unknown>, headers: Record<string, string> = {}) =>
  status === undefined ? new OpenAI.APIError(undefined, error, undefined, new Headers(headers)) : OpenAI.APIError.generate(status, { error }, undefined, new Headers(headers));
const classify = (error: unknown) => classifyModelError(describeOpenAiCompatibleError(error), 0);

describe('OpenAI-compatible errors → retry classes', () => {
  it('429 waits for retry-after, else the reset of the exhausted limit, else backs off', () => {
    expect(classify(apiError(429, { message: 'slow down', type: 'requests', code: 'rate_limit_exceeded' }, { 'retry-after': '3' }))).toEqual({ kind: 'rate_limited', waitMs: 3000 });
    expect(classify(apiError(429, { message: 'tokens' }, { 'x-ratelimit-remaining-requests': '5', 'x-ratelimit-reset-requests': '1s', 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '6m0s' }))).toEqual({
      kind: 'rate_limited',
      waitMs: 120_000,
    });
    expect(classify(apiError(429, { message: 'tokens' }, { 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '1.5s' }))).toEqual({ kind: 'rate_limited', waitMs: 1500 });
    expect(classify(apiError(429, { message: 'busy' }))).toEqual({ kind: 'rate_limited_backoff' });
  });

  it('an exhausted quota (429 insufficient_quota) is fatal: retrying cannot help', () => {
    expect(classify(apiError(429, { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' }))).toMatchObject({ kind: 'fatal', code: 'model_billing_error' });
  });

  it('503 is the shared server overloaded (fleet-wide pause); 500, 502 and 504 are transient', () => {
    expect(classify(apiError(503, { message: 'Service Unavailable' }))).toEqual({ kind: 'overloaded' });
    for (const status of [500, 502, 504]) expect(classify(apiError(status, { message: 'oops' }))).toEqual({ kind: 'transient' });
  });

  it('a prompt over the context window is fatal context_window_exceeded, whatever the server calls it', () => {
    expect(classify(apiError(400, { message: 'too long', type: 'invalid_request_error', code: 'context_length_exceeded' }))).toMatchObject({ kind: 'fatal', code: 'context_window_exceeded' });
    expect(classify(apiError(400, { message: "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens.", type: 'BadRequestError', code: 400 }))).toMatchObject({
      kind: 'fatal',
      code: 'context_window_exceeded',
    });
    expect(classify(apiError(400, { message: 'the request exceeds the available context size', type: 'exceed_context_size_error', code: 400 }))).toMatchObject({ code: 'context_window_exceeded' });
  });

  it('401, 403, 404 and other 400s are fatal with their run error codes', () => {
    expect(classify(apiError(401, { message: 'bad key', code: 'invalid_api_key' }))).toMatchObject({ kind: 'fatal', code: 'model_authentication_error' });
    expect(classify(apiError(403, { message: 'no' }))).toMatchObject({ kind: 'fatal', code: 'model_permission_error' });
    expect(classify(apiError(404, { message: 'The model `x` does not exist', code: 'model_not_found' }))).toMatchObject({ kind: 'fatal', code: 'model_not_found_error' });
    expect(classify(apiError(400, { message: 'bad tools' }))).toMatchObject({ kind: 'fatal', code: 'model_invalid_request_error' });
  });

  it('a mid-stream error takes its status from its code; connection failures and idle streams are transient', () => {
    expect(describeOpenAiCompatibleError(apiError(undefined, { message: 'engine died', type: 'server_error', code: 500 }))).toMatchObject({ status: 500, headers: undefined });
    expect(classify(apiError(undefined, { message: 'engine died', type: 'server_error' }))).toEqual({ kind: 'transient' });
    expect(describeOpenAiCompatibleError(new OpenAI.APIConnectionError({ message: 'ECONNREFUSED' }))).toMatchObject({ connectionFailure: true });
    expect(describeOpenAiCompatibleError(new ModelStreamIdleError(100, 'req_1'))).toMatchObject({ connectionFailure: true, requestId: 'req_1' });
  });

  it('keeps the request id (x-request-id)', () => {
    expect(describeOpenAiCompatibleError(apiError(500, { message: 'x' }, { 'x-request-id': 'req_abc' })).requestId).toBe('req_abc');
  });
});

describe('OpenAI rate-limit headers', () => {
  it('parses the durations', () => {
    expect(parseOpenAiDuration('1s')).toBe(1000);
    expect(parseOpenAiDuration('6m0s')).toBe(360_000);
    expect(parseOpenAiDuration('12ms')).toBe(12);
    expect(parseOpenAiDuration('1h2m3.5s')).toBe(3_723_500);
    expect(parseOpenAiDuration('soon')).toBeNull();
    expect(parseOpenAiDuration(null)).toBeNull();
  });

  it('waits for the later reset when neither limit says it is exhausted', () => {
    expect(rateLimitResetMs(new Headers({ 'x-ratelimit-reset-requests': '2s', 'x-ratelimit-reset-tokens': '500ms' }))).toBe(2000);
    expect(rateLimitResetMs(new Headers())).toBeNull();
  });

  it('passes the requests limit to the admission limiter under its names; tokens (one bucket for both directions) are not', () => {
    const headers = normalizeOpenAiHeaders(new Headers({ 'x-ratelimit-limit-requests': '60', 'x-ratelimit-remaining-requests': '59', 'x-ratelimit-limit-tokens': '150000' }));
    expect(headers?.get('anthropic-ratelimit-requests-limit')).toBe('60');
    expect(headers?.get('anthropic-ratelimit-requests-remaining')).toBe('59');
    expect(headers?.get('anthropic-ratelimit-input-tokens-limit')).toBeNull();
  });
});
