// The console's variables as loadConfig judges them (src/config.ts).
import { describe, expect, it } from 'vitest';
import { consoleBaseUrlOf, loadConfig } from '../config.js';

describe('console configuration', () => {
  it('serves no console unless a port is set', () => {
    expect(loadConfig({}).BUILDFLEET_CONSOLE_PORT).toBeUndefined();
    const config = loadConfig({ BUILDFLEET_CONSOLE_PORT: '8082' });
    expect(consoleBaseUrlOf(config)).toBe('http://127.0.0.1:8082');
    expect(consoleBaseUrlOf(loadConfig({ BUILDFLEET_CONSOLE_PORT: '8082', BUILDFLEET_CONSOLE_PUBLIC_URL: 'https://console.example.com/' }))).toBe('https://console.example.com');
  });

  it('refuses the API’s or the sites’ origin for the console', () => {
    expect(() => loadConfig({ BUILDFLEET_CONSOLE_PORT: '8081' })).toThrow(/is the sites origin/);
    expect(() => loadConfig({ BUILDFLEET_CONSOLE_PORT: '8080' })).toThrow(/is the API's origin/);
    expect(() => loadConfig({ BUILDFLEET_CONSOLE_PORT: '9000', BUILDFLEET_CONSOLE_PUBLIC_URL: 'ftp://console.example.com' })).toThrow(/BUILDFLEET_CONSOLE_PUBLIC_URL/);
  });

  it('wants a trace URL template with {traceId} that makes an http(s) URL', () => {
    expect(loadConfig({ BUILDFLEET_TRACE_URL_TEMPLATE: 'http://127.0.0.1:16686/trace/{traceId}' }).BUILDFLEET_TRACE_URL_TEMPLATE).toContain('{traceId}');
    expect(() => loadConfig({ BUILDFLEET_TRACE_URL_TEMPLATE: 'http://127.0.0.1:16686/trace/' })).toThrow(/must contain \{traceId\}/);
    expect(() => loadConfig({ BUILDFLEET_TRACE_URL_TEMPLATE: 'javascript:alert({traceId})' })).toThrow(/http/);
  });
});
