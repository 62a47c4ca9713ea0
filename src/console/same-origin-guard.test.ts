import { describe, expect, it } from 'vitest';
import { isSameOriginRequest } from './same-origin-guard.js';

const consoleOrigin = 'http://127.0.0.1:8082';
const request = (method: string, headers: Record<string, string>, url = '/api/v1/runs') => ({ method, headers, url });

describe('isSameOriginRequest', () => {
  it('lets the console’s own pages act, and anyone read', () => {
    expect(isSameOriginRequest({ consoleOrigin, request: request('POST', { origin: consoleOrigin, 'sec-fetch-site': 'same-origin' }) })).toBe(true);
    expect(isSameOriginRequest({ consoleOrigin, request: request('GET', {}) })).toBe(true);
    expect(isSameOriginRequest({ consoleOrigin, request: request('GET', { 'sec-fetch-site': 'none' }) })).toBe(true);
  });

  it('refuses unsafe requests from another origin, a sandboxed page or no origin at all', () => {
    for (const origin of ['http://127.0.0.1:8081', 'null', 'http://evil.example', 'http://127.0.0.1:8082.evil.example']) {
      expect(isSameOriginRequest({ consoleOrigin, request: request('POST', { origin }) }), origin).toBe(false);
    }
    expect(isSameOriginRequest({ consoleOrigin, request: request('DELETE', {}) })).toBe(false);
  });

  it('refuses reads of data another site asked for, but opens pages linked from elsewhere', () => {
    expect(isSameOriginRequest({ consoleOrigin, request: request('GET', { 'sec-fetch-site': 'same-site' }) })).toBe(false);
    expect(isSameOriginRequest({ consoleOrigin, request: request('GET', { 'sec-fetch-site': 'cross-site' }, '/session') })).toBe(false);
    expect(isSameOriginRequest({ consoleOrigin, request: request('GET', { 'sec-fetch-site': 'cross-site' }, '/') })).toBe(true);
    expect(isSameOriginRequest({ consoleOrigin, request: request('POST', { 'sec-fetch-site': 'cross-site', origin: 'http://evil.example' }, '/') })).toBe(false);
  });
});
