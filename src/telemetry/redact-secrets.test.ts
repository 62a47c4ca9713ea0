import { describe, expect, it } from 'vitest';
import { redactText, redactValue, registerSecretsFromEnvironment } from './redact-secrets.js';

describe('secret redaction', () => {
  it('replaces configured secrets and secret-shaped tokens wherever they appear', () => {
    registerSecretsFromEnvironment({ MY_SERVICE_TOKEN: 'canary-7f3a9c2e1b', REDIS_URL: 'redis://user:p4ssw0rd-long@host:6379', PATH: '/usr/bin' });
    expect(redactText('fetch https://x.test/?t=canary-7f3a9c2e1b failed')).toBe('fetch https://x.test/?t=[redacted] failed');
    expect(redactText('auth p4ssw0rd-long')).toBe('auth [redacted]');
    expect(redactText('Authorization: Bearer abcdefghijklmnop')).toBe('Authorization: Bearer [redacted]');
    expect(redactText('key sk-ant-api03-AAAAAAAAAAAA and bf_0123456789abcdefghij')).toBe('key [redacted] and [redacted]');
    expect(redactText('/usr/bin')).toBe('/usr/bin');
    expect(redactValue({ error: new Error('boom canary-7f3a9c2e1b'), list: ['canary-7f3a9c2e1b'] })).toMatchObject({
      error: { message: 'boom [redacted]' },
      list: ['[redacted]'],
    });
  });
});
