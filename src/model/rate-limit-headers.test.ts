// The rate-limit headers as the limiter reads them: Headers or a plain record, absent or
// unreadable values as unknown, nothing at all as null.
import { describe, expect, it } from 'vitest';
import { readRateLimitHeaders } from './rate-limit-headers.js';

describe('readRateLimitHeaders', () => {
  it('reads limit and remaining of requests, input and output tokens', () => {
    const headers = new Headers({
      'anthropic-ratelimit-requests-limit': '50',
      'anthropic-ratelimit-requests-remaining': '49',
      'anthropic-ratelimit-input-tokens-limit': '30000',
      'anthropic-ratelimit-input-tokens-remaining': '27500',
      'anthropic-ratelimit-input-tokens-reset': '2026-04-01T12:00:00Z',
      'anthropic-ratelimit-output-tokens-limit': '8000',
      'anthropic-ratelimit-output-tokens-remaining': '7200',
    });
    expect(readRateLimitHeaders(headers)).toEqual({
      requests: { limit: 50, remaining: 49 },
      inputTokens: { limit: 30_000, remaining: 27_500 },
      outputTokens: { limit: 8000, remaining: 7200 },
    });
  });

  it('reads what is absent, empty, negative or not a number as unknown, and no header at all as null', () => {
    expect(readRateLimitHeaders({ 'anthropic-ratelimit-input-tokens-limit': 'lots', 'anthropic-ratelimit-input-tokens-remaining': '-4', 'anthropic-ratelimit-output-tokens-limit': ' ' })).toBeNull();
    expect(readRateLimitHeaders({ 'anthropic-ratelimit-output-tokens-remaining': '12' })).toEqual({
      requests: { limit: null, remaining: null },
      inputTokens: { limit: null, remaining: null },
      outputTokens: { limit: null, remaining: 12 },
    });
    expect(readRateLimitHeaders(null)).toBeNull();
    expect(readRateLimitHeaders(new Headers({ 'retry-after': '5' }))).toBeNull();
  });
});
