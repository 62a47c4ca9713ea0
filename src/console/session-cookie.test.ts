import { describe, expect, it } from 'vitest';
import { clearSessionCookie, sessionCookieFor, sessionIdFromCookieHeader, setSessionCookie } from './session-cookie.js';

const id = 'A'.repeat(43);

describe('session cookie', () => {
  it('is HttpOnly and SameSite=Strict; Secure with the __Host- prefix only over https', () => {
    const plain = sessionCookieFor('http://127.0.0.1:8082');
    expect(setSessionCookie({ cookie: plain, sessionId: id, maxAgeSeconds: 60 })).toBe(`bf_console=${id}; Path=/; Max-Age=60; HttpOnly; SameSite=Strict`);
    const secure = sessionCookieFor('https://console.example.com');
    expect(setSessionCookie({ cookie: secure, sessionId: id, maxAgeSeconds: 60 })).toBe(`__Host-bf_console=${id}; Path=/; Max-Age=60; HttpOnly; SameSite=Strict; Secure`);
    expect(clearSessionCookie(secure)).toContain('Max-Age=0');
  });

  it('reads its own cookie among others and ignores malformed ids', () => {
    const cookie = sessionCookieFor('http://127.0.0.1:8082');
    expect(sessionIdFromCookieHeader({ cookie, header: `other=1; bf_console=${id}; x=y` })).toBe(id);
    expect(sessionIdFromCookieHeader({ cookie, header: 'bf_console=short' })).toBeNull();
    expect(sessionIdFromCookieHeader({ cookie, header: `xbf_console=${id}` })).toBeNull();
    expect(sessionIdFromCookieHeader({ cookie, header: undefined })).toBeNull();
  });
});
