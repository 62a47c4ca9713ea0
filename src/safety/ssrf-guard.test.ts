import { describe, expect, it } from 'vitest';
import { blockedAddressReason, blockedHostReason, createGuardedLookup, SsrfBlockedError, type ResolvedAddress } from './ssrf-guard.js';

describe('blockedAddressReason', () => {
  it.each([
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['169.254.169.254', /link-local/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.127.255.255', /carrier-grade NAT/],
    ['0.0.0.0', /unspecified/],
    ['0.1.2.3', /unspecified/],
    ['255.255.255.255', /broadcast/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['240.0.0.1', /reserved/],
    ['192.0.2.10', /documentation/],
    ['198.51.100.1', /documentation/],
    ['203.0.113.9', /documentation/],
    ['198.18.0.1', /benchmarking/],
    ['192.0.0.8', /IETF/],
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['[::1]', /loopback/],
    ['::ffff:127.0.0.1', /IPv4-mapped/],
    ['::ffff:7f00:1', /IPv4-mapped/],
    ['::ffff:8.8.8.8', /IPv4-mapped/],
    ['::ffff:0:7f00:1', /IPv4-translated/],
    ['::127.0.0.1', /IPv4-compatible/],
    ['64:ff9b::127.0.0.1', /NAT64 address of a loopback/],
    ['64:ff9b::a9fe:a9fe', /NAT64 address of a link-local/],
    ['64:ff9b:1::1', /local-use NAT64/],
    ['2002:7f00:1::', /6to4 address of a loopback/],
    ['2002:a00:1::1', /6to4 address of a private/],
    ['fc00::1', /unique local/],
    ['fd00:ec2::254', /unique local/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['fec0::1', /site-local/],
    ['ff02::1', /multicast/],
    ['2001:db8::1', /documentation/],
    ['2001::1', /IETF/],
    ['100::1', /discard/],
    ['4000::1', /global unicast/],
    ['127.1', /not an IP address/],
    ['localhost', /not an IP address/],
    ['', /not an IP address/],
  ])('refuses %s', (address, reason) => {
    expect(blockedAddressReason(address)).toMatch(reason);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001:80e::200e', '64:ff9b::808:808', '2002:808:808::1'])(
    'allows the public address %s',
    (address) => {
      expect(blockedAddressReason(address)).toBeNull();
    },
  );
});

describe('blockedHostReason (WHATWG-normalized hosts)', () => {
  it.each([
    ['http://2130706433/', /loopback/],
    ['http://0x7f000001/', /loopback/],
    ['http://0177.0.0.1/', /loopback/],
    ['http://127.1/', /loopback/],
    ['http://127.0.0.1./', /loopback/],
    ['http://[::ffff:127.0.0.1]/', /IPv4-mapped/],
    ['http://0/', /unspecified/],
    ['http://localhost/', /localhost/],
    ['http://LocalHost./', /localhost/],
    ['http://api.localhost/', /localhost/],
    ['http://2852039166/', /link-local/],
  ])('refuses %s', (url, reason) => {
    expect(blockedHostReason(new URL(url).hostname)).toMatch(reason);
  });

  it('leaves other names to the resolved-address check', () => {
    expect(blockedHostReason('images.example.com')).toBeNull();
  });
});

function lookupOnce(answers: ResolvedAddress[], options: { all?: boolean; family?: number } = {}) {
  const lookup = createGuardedLookup({ resolve: async () => answers });
  return new Promise<{ error: Error | null; address: unknown }>((resolve) => {
    lookup('host.test', { all: options.all ?? false, family: options.family ?? 0 }, (error, address) => resolve({ error, address }));
  });
}

describe('createGuardedLookup', () => {
  it('hands the socket exactly the addresses it checked', async () => {
    expect(await lookupOnce([{ address: '93.184.216.34', family: 4 }])).toEqual({ error: null, address: '93.184.216.34' });
    expect(await lookupOnce([{ address: '93.184.216.34', family: 4 }, { address: '2606:4700::1', family: 6 }], { all: true })).toEqual({
      error: null,
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:4700::1', family: 6 },
      ],
    });
  });

  it('refuses a name when any of its addresses is refused', async () => {
    const { error } = await lookupOnce([{ address: '93.184.216.34', family: 4 }, { address: '127.0.0.1', family: 4 }], { all: true });
    expect(SsrfBlockedError.isInstance(error)).toBe(true);
    expect(error?.message).toContain('host.test resolves to 127.0.0.1, a loopback address');
  });

  it('answers ENOTFOUND when no address of the asked family exists', async () => {
    const { error } = await lookupOnce([{ address: '93.184.216.34', family: 4 }], { family: 6 });
    expect((error as NodeJS.ErrnoException).code).toBe('ENOTFOUND');
  });
});
