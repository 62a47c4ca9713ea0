import { describe, expect, it } from 'vitest';
import { decideBrowserEgress } from './browser-egress-policy.js';
import type { FetchTargetPolicy } from './check-fetch-target.js';

const policy: FetchTargetPolicy = { publicBaseUrl: 'http://127.0.0.1:8080', allowlist: 'https://cdn.example.com', allowPublic: true };
const request = (url: string, over: FetchTargetPolicy = policy) => decideBrowserEgress({ target: { kind: 'request', url: new URL(url) }, policy: over });
const tunnel = (hostname: string, port: number, over: FetchTargetPolicy = policy) =>
  decideBrowserEgress({ target: { kind: 'tunnel', hostname, port }, policy: over });

describe('decideBrowserEgress', () => {
  it('trusts exactly the allowlisted origins, for requests and for tunnels to their host:port', () => {
    expect(request('http://127.0.0.1:8080/sites/x/')).toEqual({ allowed: true, trusted: true });
    expect(tunnel('127.0.0.1', 8080)).toEqual({ allowed: true, trusted: true });
    expect(tunnel('cdn.example.com', 443)).toEqual({ allowed: true, trusted: true });
  });

  it('refuses other ports of an allowed host, loopback in any form, localhost and metadata', () => {
    for (const decision of [
      request('http://127.0.0.1:6379/'),
      request('http://[::1]:8080/'),
      request('http://localhost:8080/'),
      request('http://169.254.169.254/latest/meta-data/'),
      tunnel('127.0.0.1', 6379),
      tunnel('[::1]', 8080),
      tunnel('[::ffff:7f00:1]', 8080),
      tunnel('localhost', 8080),
    ]) {
      expect(decision).toMatchObject({ allowed: false, reason: expect.stringContaining('not allowed') });
    }
  });

  it('lets public names through untrusted (the proxy checks their addresses) only while public hosts are allowed', () => {
    expect(request('http://example.org/')).toEqual({ allowed: true, trusted: false });
    expect(tunnel('example.org', 443)).toEqual({ allowed: true, trusted: false });
    // Another port of an allowlisted public host is a public host like any other: not trusted.
    expect(tunnel('cdn.example.com', 8443)).toEqual({ allowed: true, trusted: false });
    const closed = { ...policy, allowPublic: false };
    expect(request('http://example.org/', closed)).toMatchObject({ allowed: false });
    expect(tunnel('example.org', 443, closed)).toMatchObject({ allowed: false });
  });

  it('refuses URLs with credentials', () => {
    expect(request('http://user:secret@127.0.0.1:8080/')).toMatchObject({ allowed: false });
  });
});
