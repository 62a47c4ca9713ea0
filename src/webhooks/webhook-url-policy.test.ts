import { describe, expect, it } from 'vitest';
import { checkWebhookUrl } from './webhook-url-policy.js';

const resolvesTo = (address: string) => async () => [{ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }];
const codeOf = (promise: Promise<unknown>) => promise.then(() => 'accepted', (error: { code?: string }) => error.code);

describe('checkWebhookUrl', () => {
  it('accepts https to a name that resolves to public addresses only', async () => {
    const checked = await checkWebhookUrl({ url: 'https://hooks.example.com/x', allowlist: '', resolve: resolvesTo('93.184.216.34') });
    expect(checked.trusted).toBe(false);
  });

  it('refuses a name that resolves to a private or metadata address, or to nothing', async () => {
    expect(await codeOf(checkWebhookUrl({ url: 'https://hooks.example.com/x', allowlist: '', resolve: resolvesTo('10.0.0.7') }))).toBe('webhook_url_blocked');
    expect(await codeOf(checkWebhookUrl({ url: 'https://hooks.example.com/x', allowlist: '', resolve: resolvesTo('169.254.169.254') }))).toBe('webhook_url_blocked');
    expect(await codeOf(checkWebhookUrl({ url: 'https://hooks.example.com/x', allowlist: '', resolve: async () => [] }))).toBe('webhook_url_blocked');
  });

  it('refuses http, credentials and fragments off the allowlist; trusts an allowlisted origin, http included', async () => {
    const resolve = resolvesTo('93.184.216.34');
    expect(await codeOf(checkWebhookUrl({ url: 'http://hooks.example.com/x', allowlist: '', resolve }))).toBe('webhook_url_invalid');
    expect(await codeOf(checkWebhookUrl({ url: 'https://a:b@hooks.example.com/x', allowlist: '', resolve }))).toBe('webhook_url_invalid');
    expect(await codeOf(checkWebhookUrl({ url: 'https://hooks.example.com/x#y', allowlist: '', resolve }))).toBe('webhook_url_invalid');
    expect(await codeOf(checkWebhookUrl({ url: 'not a url', allowlist: '', resolve }))).toBe('webhook_url_invalid');
    const trusted = await checkWebhookUrl({ url: 'http://127.0.0.1:8099/hook', allowlist: 'http://127.0.0.1:8099', resolve: resolvesTo('127.0.0.1') });
    expect(trusted.trusted).toBe(true);
    // Another port of the same host is another origin.
    expect(await codeOf(checkWebhookUrl({ url: 'https://127.0.0.1:8100/hook', allowlist: 'http://127.0.0.1:8099', resolve }))).toBe('webhook_url_blocked');
  });
});
