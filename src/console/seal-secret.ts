// Seals a session's API key with a key derived from the session id, which only the browser's
// HttpOnly cookie holds (Redis keeps the id's hash, never the id). Whoever reads Redis — a backup,
// a debugging session, a MONITOR — finds the key id and tenant of each session but not the API
// key: unsealing needs the cookie. AES-256-GCM also detects a tampered value.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const INFO = 'buildfleet console session: api key';
const IV_BYTES = 12;
const TAG_BYTES = 16;

function keyOf(sessionId: string): Buffer {
  // HKDF rather than a password KDF: the session id is 256 random bits, nothing to slow down.
  return Buffer.from(hkdfSync('sha256', Buffer.from(sessionId, 'utf8'), Buffer.alloc(0), INFO, 32));
}

/** base64url(iv ‖ tag ‖ ciphertext) of `secret` under the session's key. */
export function sealSecret({ sessionId, secret }: { sessionId: string; secret: string }): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(sessionId), iv);
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
}

/** The secret sealed by sealSecret, or null when the value is malformed, tampered with, or was
 * sealed for another session. */
export function unsealSecret({ sessionId, sealed }: { sessionId: string; sealed: string }): string | null {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(sessionId), bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
