// The SSRF guard against a corpus of address spellings, DNS answers and redirect tricks, aimed at
// canary listeners on loopback that record every TCP connection: none may be reached. Requests go
// through fetchWithLimits, the path fetch_url_live and fetch_image use, with DNS scripted per
// name (so `loopback.test` can resolve to 127.0.0.1 offline, and a rebinding name can change its
// answer between lookups).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedFetch } from '../../src/safety/ssrf-guard-fetch.js';
import { SsrfBlockedError, type HostResolver, type ResolvedAddress } from '../../src/safety/ssrf-guard.js';
import { fetchWithLimits } from '../../src/tools/http/fetch-with-limits.js';
import { ToolError } from '../../src/tools/tool-types.js';

interface Canary {
  server: Server;
  port: number;
  connections: number;
}

async function startCanary(host: string): Promise<Canary | null> {
  const canary: Canary = { server: createServer((_request, response) => response.end('canary reached')), port: 0, connections: 0 };
  canary.server.on('connection', () => (canary.connections += 1));
  try {
    await new Promise<void>((resolve, reject) => {
      canary.server.once('error', reject);
      canary.server.listen(0, host, resolve);
    });
  } catch {
    return null;
  }
  canary.port = (canary.server.address() as AddressInfo).port;
  return canary;
}

let v4: Canary;
let v6: Canary | null;
let allowed: Server;
let allowedOrigin: string;

beforeAll(async () => {
  v4 = (await startCanary('127.0.0.1'))!;
  // Not every machine has IPv6 loopback; the IPv6 cases then aim at a port nothing listens on.
  v6 = await startCanary('::1');
  // The allowlisted host (the fleet's own origin in these tests): redirects wherever ?to= says.
  allowed = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://allowed');
    if (url.pathname === '/redirect') {
      response.writeHead(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('to') ?? '/' }).end();
    } else {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('allowed');
    }
  });
  await new Promise<void>((resolve) => allowed.listen(0, '127.0.0.1', resolve));
  allowedOrigin = `http://127.0.0.1:${(allowed.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const server of [v4?.server, v6?.server, allowed]) {
    if (!server) continue;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

const P = () => v4.port;
const P6 = () => v6?.port ?? 9;

/** Scripted DNS: every name the corpus uses, and nothing else. */
const DNS: Record<string, ResolvedAddress[]> = {
  'loopback.test': [{ address: '127.0.0.1', family: 4 }],
  'loopback6.test': [{ address: '::1', family: 6 }],
  'mapped.test': [{ address: '::ffff:127.0.0.1', family: 6 }],
  'zero.test': [{ address: '0.0.0.0', family: 4 }],
  'mixed.test': [
    { address: '93.184.216.34', family: 4 },
    { address: '127.0.0.1', family: 4 },
  ],
  'metadata.google.internal': [{ address: '169.254.169.254', family: 4 }],
  'private.test': [{ address: '10.0.0.7', family: 4 }],
  'nat64.test': [{ address: '64:ff9b::7f00:1', family: 6 }],
};
const resolveHost: HostResolver = async (hostname) => {
  const answer = DNS[hostname];
  if (!answer) throw Object.assign(new Error(`no scripted answer for ${hostname}`), { code: 'ENOTFOUND' });
  return answer;
};

async function outcomeOf(url: string, resolver: HostResolver = resolveHost, signal = new AbortController().signal): Promise<string> {
  try {
    await fetchWithLimits({ url, policy: { publicBaseUrl: allowedOrigin, allowlist: '' }, signal, timeoutMs: 3_000, resolveHost: resolver });
    return 'reached';
  } catch (error) {
    if (ToolError.isInstance(error)) return error.code;
    return `threw ${(error as Error).name}`;
  }
}

const redirect = (to: string, status = 302) => `${allowedOrigin}/redirect?status=${status}&to=${encodeURIComponent(to)}`;

// [name, url] — every one must be refused by the guard (fetch_blocked) or as no http(s) URL.
const corpus: Array<[string, () => string]> = [
  ['loopback literal', () => `http://127.0.0.1:${P()}/`],
  ['decimal loopback', () => `http://2130706433:${P()}/`],
  ['hex loopback', () => `http://0x7f000001:${P()}/`],
  ['octal loopback', () => `http://0177.0.0.1:${P()}/`],
  ['short loopback 127.1', () => `http://127.1:${P()}/`],
  ['short loopback 127.0.1', () => `http://127.0.1:${P()}/`],
  ['mixed hex/decimal', () => `http://0x7f.0.0.1:${P()}/`],
  ['zero-padded octets', () => `http://127.000.000.001:${P()}/`],
  ['trailing dot', () => `http://127.0.0.1.:${P()}/`],
  ['percent-encoded host', () => `http://%31%32%37.0.0.1:${P()}/`],
  ['fullwidth digits', () => `http://１２７.０.０.１:${P()}/`],
  ['ideographic full stops', () => `http://127。0。0。1:${P()}/`],
  ['other loopback 127.8.9.10', () => `http://127.8.9.10:${P()}/`],
  ['unspecified 0.0.0.0', () => `http://0.0.0.0:${P()}/`],
  ['unspecified 0', () => `http://0:${P()}/`],
  ['IPv6 loopback', () => `http://[::1]:${P6()}/`],
  ['IPv6 unspecified', () => `http://[::]:${P()}/`],
  ['IPv4-mapped IPv6', () => `http://[::ffff:127.0.0.1]:${P()}/`],
  ['IPv4-mapped IPv6, hex', () => `http://[::ffff:7f00:1]:${P()}/`],
  ['IPv4-mapped IPv6, long form', () => `http://[0:0:0:0:0:ffff:127.0.0.1]:${P()}/`],
  ['IPv4-compatible IPv6', () => `http://[::127.0.0.1]:${P()}/`],
  ['NAT64 of loopback', () => `http://[64:ff9b::127.0.0.1]:${P()}/`],
  ['6to4 of loopback', () => `http://[2002:7f00:1::]:${P()}/`],
  ['localhost', () => `http://localhost:${P()}/`],
  ['LOCALHOST.', () => `http://LOCALHOST.:${P()}/`],
  ['*.localhost', () => `http://canary.localhost:${P()}/`],
  ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/'],
  ['cloud metadata, decimal', () => 'http://2852039166/latest/meta-data/'],
  ['cloud metadata, hex', () => 'http://0xa9fea9fe/latest/meta-data/'],
  ['AWS IPv6 metadata', () => 'http://[fd00:ec2::254]/latest/meta-data/'],
  ['private 10/8', () => 'http://10.0.0.1/'],
  ['private 172.16/12', () => 'http://172.16.0.1/'],
  ['private 192.168/16', () => 'http://192.168.1.1/'],
  ['CGNAT', () => 'http://100.64.0.1/'],
  ['multicast', () => 'http://224.0.0.1/'],
  ['broadcast', () => 'http://255.255.255.255/'],
  ['IPv6 link-local', () => `http://[fe80::1]:${P()}/`],
  ['IPv6 unique local', () => 'http://[fc00::1]/'],
  ['IPv6 multicast', () => 'http://[ff02::1]/'],
  ['credentials before a loopback host', () => `http://${new URL(allowedOrigin).host}@127.0.0.1:${P()}/`],
  ['file scheme', () => 'file:///etc/passwd'],
  ['gopher scheme', () => `gopher://127.0.0.1:${P()}/_GET%20/`],
  ['dict scheme', () => `dict://127.0.0.1:${P()}/info`],
  ['DNS name → 127.0.0.1', () => `http://loopback.test:${P()}/`],
  ['DNS name → ::1', () => `http://loopback6.test:${P6()}/`],
  ['DNS name → ::ffff:127.0.0.1', () => `http://mapped.test:${P()}/`],
  ['DNS name → 0.0.0.0', () => `http://zero.test:${P()}/`],
  ['DNS name → public + loopback', () => `http://mixed.test:${P()}/`],
  ['DNS name → NAT64 loopback', () => `http://nat64.test:${P()}/`],
  ['DNS name → metadata', () => 'http://metadata.google.internal/computeMetadata/v1/'],
  ['DNS name → private', () => 'http://private.test/'],
  ['redirect → 127.0.0.1', () => redirect(`http://127.0.0.1:${P()}/`)],
  ['redirect 301 → 127.0.0.1', () => redirect(`http://127.0.0.1:${P()}/`, 301)],
  ['redirect 303 → 127.0.0.1', () => redirect(`http://127.0.0.1:${P()}/`, 303)],
  ['redirect 307 → 127.0.0.1', () => redirect(`http://127.0.0.1:${P()}/`, 307)],
  ['redirect 308 → 127.0.0.1', () => redirect(`http://127.0.0.1:${P()}/`, 308)],
  ['redirect → metadata', () => redirect('http://169.254.169.254/latest/meta-data/')],
  ['redirect → decimal IP', () => redirect(`http://2130706433:${P()}/`)],
  ['redirect → localhost', () => redirect(`http://localhost:${P()}/`)],
  ['redirect → protocol-relative', () => redirect(`//127.0.0.1:${P()}/`)],
  ['redirect → backslashes', () => redirect(`/\\127.0.0.1:${P()}/`)],
  ['redirect → [::1]', () => redirect(`http://[::1]:${P6()}/`)],
  ['redirect → DNS name of loopback', () => redirect(`http://loopback.test:${P()}/`)],
  ['redirect → file:', () => redirect('file:///etc/passwd')],
  ['redirect → gopher:', () => redirect(`gopher://127.0.0.1:${P()}/_x`)],
  ['redirect chain → loopback', () => redirect(redirect(redirect(`http://127.0.0.1:${P()}/`)))],
  ['redirect → IPv4-mapped', () => redirect(`http://[::ffff:127.0.0.1]:${P()}/`)],
];

describe('SSRF corpus', () => {
  it('has at least 30 spellings and tricks', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(30);
  });

  it.each(corpus)('refuses %s', async (_name, url) => {
    expect(await outcomeOf(url())).toMatch(/^(fetch_blocked|url_invalid)$/);
  });

  it('reached no canary, over IPv4 or IPv6', () => {
    expect(v4.connections).toBe(0);
    expect(v6?.connections ?? 0).toBe(0);
  });
});

describe('DNS rebinding', () => {
  it('resolves once per connection and connects to what it checked: a second answer of 127.0.0.1 never connects', async () => {
    const calls: string[] = [];
    const controller = new AbortController();
    // First answer public, later answers loopback. The public answer is not connected to (the
    // resolver aborts the request as it answers, keeping the test off the network); what matters
    // is that nothing resolves the name a second time for the same connection, which is where a
    // check-then-connect guard would meet 127.0.0.1.
    const rebinding: HostResolver = async (hostname) => {
      calls.push(hostname);
      if (calls.length === 1) {
        controller.abort(new Error('stop before connecting to the public address'));
        return [{ address: '93.184.216.34', family: 4 }];
      }
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const first = await outcomeOf(`http://rebind.test:${P()}/`, rebinding, controller.signal);
    expect(first).not.toBe('reached');
    expect(calls).toEqual(['rebind.test']);

    const second = await outcomeOf(`http://rebind.test:${P()}/`, rebinding);
    expect(second).toBe('fetch_blocked');
    expect(calls).toEqual(['rebind.test', 'rebind.test']);
    expect(v4.connections).toBe(0);
  });

  it('still reaches the allowlisted origin (trusted, not address-checked)', async () => {
    expect(await outcomeOf(`${allowedOrigin}/`)).toBe('reached');
  });
});

describe('the connection layer alone (guardedFetch, without the URL pre-check)', () => {
  it.each([
    ['127.0.0.1', () => `http://127.0.0.1:${P()}/`],
    ['0.0.0.0', () => `http://0.0.0.0:${P()}/`],
    ['[::1]', () => `http://[::1]:${P6()}/`],
    ['[::ffff:7f00:1]', () => `http://[::ffff:7f00:1]:${P()}/`],
    ['localhost', () => `http://localhost:${P()}/`],
    ['loopback.test', () => `http://loopback.test:${P()}/`],
    ['mixed.test', () => `http://mixed.test:${P()}/`],
    ['mapped.test', () => `http://mapped.test:${P()}/`],
  ])('refuses %s before sending a byte', async (_name, url) => {
    const error = await guardedFetch(new URL(url()), { method: 'GET', headers: {}, signal: AbortSignal.timeout(3_000), trusted: false, resolve: resolveHost }).catch(
      (caught: unknown) => caught,
    );
    expect(SsrfBlockedError.isInstance(error)).toBe(true);
    expect(v4.connections).toBe(0);
    expect(v6?.connections ?? 0).toBe(0);
  });
});

describe('control', () => {
  it('the canary does count connections once its origin is allowlisted', async () => {
    const control = (await startCanary('127.0.0.1'))!;
    try {
      const origin = `http://127.0.0.1:${control.port}`;
      const response = await fetchWithLimits({ url: `${origin}/`, policy: { publicBaseUrl: allowedOrigin, allowlist: origin }, signal: new AbortController().signal });
      expect(response.body.toString()).toBe('canary reached');
      expect(control.connections).toBe(1);
    } finally {
      control.server.closeAllConnections();
      await new Promise<void>((resolve) => control.server.close(() => resolve()));
    }
  });
});
