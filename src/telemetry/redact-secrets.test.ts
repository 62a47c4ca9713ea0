import { describe, expect, it } from 'vitest';
import { redactText, redactUrl, redactValue, registerSecretsFromEnvironment } from './redact-secrets.js';

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

  it('knows the password of every Redis Cluster seed', () => {
    registerSecretsFromEnvironment({ BUILDFLEET_REDIS_CLUSTER_NODES: 'redis://:clusterpass-9a8b@10.0.0.1:7000, redis://:clusterpass-9a8b@10.0.0.2:7000' });
    expect(redactText('NOAUTH clusterpass-9a8b refused')).toBe('NOAUTH [redacted] refused');
  });

  it('redacts a URL’s password for printing, whatever its length, and keeps the rest', () => {
    expect(redactUrl('redis://:pw@127.0.0.1:6379')).toBe('redis://:[redacted]@127.0.0.1:6379');
    expect(redactUrl('redis://admin:hunter2hunter2@redis.internal:6380/2')).toBe('redis://admin:[redacted]@redis.internal:6380/2');
    expect(redactUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
    expect(redactUrl('not a url :secret@')).toBe('(a URL that does not parse)');
    // A known secret elsewhere in the URL goes too.
    registerSecretsFromEnvironment({ QUERY_TOKEN: 'query-canary-5d1e' });
    expect(redactUrl('https://:pw@x.test/?t=query-canary-5d1e')).toBe('https://:[redacted]@x.test/?t=[redacted]');
  });

  it('takes a URL’s password both as its text writes it and decoded', () => {
    registerSecretsFromEnvironment({ OTHER_URL: 'redis://:pa%40ss-word-9@host:6379', BROKEN_URL: 'redis://:pass%zz-word-8@host:6379' });
    expect(redactText('connect redis://:pa%40ss-word-9@host:6379 failed')).toBe('connect redis://:[redacted]@host:6379 failed');
    expect(redactText('auth pa@ss-word-9')).toBe('auth [redacted]');
    // A `%` that starts no escape: still the password as written.
    expect(redactText('auth pass%zz-word-8')).toBe('auth [redacted]');
  });
});
