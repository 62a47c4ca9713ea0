// The session cookie: HttpOnly (page scripts cannot read it, so neither can a script injected into
// the console), SameSite=Strict (no other site's page makes the browser send it), Path=/, and
// Secure with the __Host- prefix when the console is served over https (the prefix makes the
// browser refuse the cookie from a sibling subdomain or without Secure). Parsed by hand: one
// cookie, one name, no dependency needed.
import { SESSION_ID_PATTERN } from './console-session-store.js';

export interface SessionCookie {
  name: string;
  secure: boolean;
}

/** The cookie's name and flags for a console served at `consoleUrl`. */
export function sessionCookieFor(consoleUrl: string): SessionCookie {
  const secure = new URL(consoleUrl).protocol === 'https:';
  return { name: secure ? '__Host-bf_console' : 'bf_console', secure };
}

/** The Set-Cookie value that stores a session id for `maxAgeSeconds`. */
export function setSessionCookie({ cookie, sessionId, maxAgeSeconds }: { cookie: SessionCookie; sessionId: string; maxAgeSeconds: number }): string {
  return `${cookie.name}=${sessionId}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${cookie.secure ? '; Secure' : ''}`;
}

/** The Set-Cookie value that removes the session cookie. */
export function clearSessionCookie(cookie: SessionCookie): string {
  return `${cookie.name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${cookie.secure ? '; Secure' : ''}`;
}

/** The session id a Cookie header carries, or null (absent or not shaped like one). */
export function sessionIdFromCookieHeader({ cookie, header }: { cookie: SessionCookie; header: string | undefined }): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator < 0 || part.slice(0, separator).trim() !== cookie.name) continue;
    const value = part.slice(separator + 1).trim();
    return SESSION_ID_PATTERN.test(value) ? value : null;
  }
  return null;
}
