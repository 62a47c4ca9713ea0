import { describe, expect, it } from 'vitest';
import { ToolError } from '../tool-types.js';
import { allowedOrigins, checkFetchTarget } from './check-fetch-target.js';

const policy = { publicBaseUrl: 'http://127.0.0.1:8080/base/', allowlist: ' https://images.example.com , http://cdn.example.org:8443/x, nonsense, ftp://files.example' };

function codeOf(url: string): string {
  try {
    checkFetchTarget({ url, policy });
    return 'allowed';
  } catch (error) {
    if (ToolError.isInstance(error)) return error.code;
    throw error;
  }
}

describe('checkFetchTarget', () => {
  it('allows the site server origin and allowlisted origins', () => {
    expect(codeOf('http://127.0.0.1:8080/sites/run_1/')).toBe('allowed');
    expect(codeOf('https://images.example.com/a.png?x=1')).toBe('allowed');
    expect(codeOf('http://cdn.example.org:8443/other/path')).toBe('allowed');
    expect(checkFetchTarget({ url: 'HTTPS://IMAGES.EXAMPLE.COM/a.png', policy }).href).toBe('https://images.example.com/a.png');
  });

  it('keeps only valid http(s) origins from the allowlist', () => {
    expect([...allowedOrigins(policy)].sort()).toEqual(['http://127.0.0.1:8080', 'http://cdn.example.org:8443', 'https://images.example.com']);
  });

  it.each([
    ['http://127.0.0.1:8081/', 'fetch_blocked'],
    ['http://images.example.com/a.png', 'fetch_blocked'],
    ['https://evil.example/', 'fetch_blocked'],
    ['http://169.254.169.254/latest/meta-data/', 'fetch_blocked'],
    ['http://localhost:8080/', 'fetch_blocked'],
    ['file:///etc/passwd', 'url_invalid'],
    ['ftp://files.example/x', 'url_invalid'],
    ['javascript:alert(1)', 'url_invalid'],
    ['not a url', 'url_invalid'],
    ['/relative/path', 'url_invalid'],
    ['https://user:secret@images.example.com/a.png', 'url_invalid'],
  ])('refuses %s with %s', (url, code) => {
    expect(codeOf(url)).toBe(code);
  });
});
