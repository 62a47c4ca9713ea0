import { describe, expect, it } from 'vitest';
import { sealSecret, unsealSecret } from './seal-secret.js';

const secret = 'bf_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';

describe('sealSecret', () => {
  it('round-trips under the same session id and hides the secret', () => {
    const sealed = sealSecret({ sessionId: 'session-one', secret });
    expect(sealed).not.toContain(secret);
    expect(Buffer.from(sealed, 'base64url').toString('latin1')).not.toContain('bf_');
    expect(unsealSecret({ sessionId: 'session-one', sealed })).toBe(secret);
  });

  it('refuses another session id, a tampered value and garbage', () => {
    const sealed = sealSecret({ sessionId: 'session-one', secret });
    expect(unsealSecret({ sessionId: 'session-two', sealed })).toBeNull();
    const bytes = Buffer.from(sealed, 'base64url');
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1;
    expect(unsealSecret({ sessionId: 'session-one', sealed: bytes.toString('base64url') })).toBeNull();
    expect(unsealSecret({ sessionId: 'session-one', sealed: 'short' })).toBeNull();
  });
});
