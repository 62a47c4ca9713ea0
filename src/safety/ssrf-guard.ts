// The SSRF guard's rules: which addresses a tool's HTTP request may connect to, and a DNS lookup
// for net/tls `connect` that resolves a name and refuses it when any address it resolves to is
// not a public unicast address. Because the socket then connects to exactly the address that was
// checked (there is no second resolution), a DNS answer that changes between check and connect
// (DNS rebinding) cannot slip a private address through. ssrf-guard-fetch.ts uses both.
//
// Refused: loopback, private (RFC 1918, fc00::/7), link-local (incl. 169.254.169.254 metadata,
// fe80::/10), CGNAT 100.64/10, multicast, unspecified, broadcast, documentation, benchmarking and
// reserved ranges, every IPv6 address outside global unicast 2000::/3, IPv4-mapped/-compatible
// IPv6 forms, and NAT64/6to4 addresses whose embedded IPv4 address is refused.
import { lookup as dnsLookup } from 'node:dns';
import { isIP, isIPv4, type LookupFunction } from 'node:net';

/** A refused request target; fetch-with-limits turns it into the tool error `fetch_blocked`. */
export class SsrfBlockedError extends Error {
  readonly code = 'ssrf_blocked';

  constructor(message: string) {
    super(message);
    this.name = 'SsrfBlockedError';
  }

  static isInstance(value: unknown): value is SsrfBlockedError {
    return value instanceof Error && (value as { code?: unknown }).code === 'ssrf_blocked';
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (tests inject one to script DNS answers). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo, as Node's own connections use). */
export const systemResolver: HostResolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 })));
    });
  });

type Range = readonly [base: bigint, prefixLength: number, reason: string];

function parseIPv4(address: string): bigint | null {
  const parts = address.split('.');
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    value = (value << 8n) | BigInt(Number(part));
  }
  return value;
}

function parseIPv6(input: string): bigint | null {
  let address = input.toLowerCase();
  const zone = address.indexOf('%');
  if (zone !== -1) address = address.slice(0, zone);
  // An embedded dotted IPv4 tail (::ffff:127.0.0.1) becomes two hex groups.
  const tail = /^(.*:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
  if (tail) {
    const v4 = parseIPv4(tail[2] ?? '');
    if (v4 === null) return null;
    address = `${tail[1]}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] === '' ? [] : (halves[0] ?? '').split(':');
  const rest = halves.length === 2 ? (halves[1] === '' ? [] : (halves[1] ?? '').split(':')) : [];
  const missing = 8 - head.length - rest.length;
  if ((halves.length === 1 && missing !== 0) || (halves.length === 2 && missing < 1)) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  let value = 0n;
  for (const group of groups) {
    if (!/^[0-9a-f]{1,4}$/.test(group)) return null;
    value = (value << 16n) | BigInt(parseInt(group, 16));
  }
  return value;
}

const v4 = (text: string, prefixLength: number, reason: string): Range => [parseIPv4(text) ?? 0n, prefixLength, reason];
const v6 = (text: string, prefixLength: number, reason: string): Range => [parseIPv6(text) ?? 0n, prefixLength, reason];

// Order matters where ranges nest: the first match names the reason.
const IPV4_REFUSED: readonly Range[] = [
  v4('255.255.255.255', 32, 'the broadcast address'),
  v4('0.0.0.0', 8, 'an unspecified ("this network") address'),
  v4('10.0.0.0', 8, 'a private address'),
  v4('100.64.0.0', 10, 'a carrier-grade NAT (shared) address'),
  v4('127.0.0.0', 8, 'a loopback address'),
  v4('169.254.0.0', 16, 'a link-local address (cloud metadata lives here)'),
  v4('172.16.0.0', 12, 'a private address'),
  v4('192.0.0.0', 24, 'an IETF protocol assignment address'),
  v4('192.0.2.0', 24, 'a documentation address'),
  v4('192.88.99.0', 24, 'a 6to4 relay anycast address'),
  v4('192.168.0.0', 16, 'a private address'),
  v4('198.18.0.0', 15, 'a benchmarking address'),
  v4('198.51.100.0', 24, 'a documentation address'),
  v4('203.0.113.0', 24, 'a documentation address'),
  v4('224.0.0.0', 4, 'a multicast address'),
  v4('240.0.0.0', 4, 'a reserved address'),
];

const IPV6_REFUSED: readonly Range[] = [
  v6('::', 128, 'the unspecified address'),
  v6('::1', 128, 'a loopback address'),
  v6('::ffff:0:0', 96, 'an IPv4-mapped IPv6 address'),
  v6('::ffff:0:0:0', 96, 'an IPv4-translated IPv6 address'),
  v6('::', 96, 'an IPv4-compatible IPv6 address'),
  v6('64:ff9b:1::', 48, 'a local-use NAT64 address'),
  v6('100::', 64, 'a discard-only address'),
  v6('2001::', 23, 'an IETF protocol assignment address (Teredo, ORCHID, benchmarking)'),
  v6('2001:db8::', 32, 'a documentation address'),
  v6('3fff::', 20, 'a documentation address'),
  v6('fc00::', 7, 'a unique local (private) address'),
  v6('fe80::', 10, 'a link-local address'),
  v6('fec0::', 10, 'a site-local address'),
  v6('ff00::', 8, 'a multicast address'),
];

function matches(value: bigint, width: 32 | 128, [base, prefixLength]: Range): boolean {
  const shift = BigInt(width - prefixLength);
  return value >> shift === base >> shift;
}

function ipv4Reason(value: bigint): string | null {
  return IPV4_REFUSED.find((range) => matches(value, 32, range))?.[2] ?? null;
}

/** Why a connection to this IP address is refused, or null when it is a public unicast address.
 * Anything that does not parse as an IP address is refused. */
export function blockedAddressReason(address: string): string | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(bare)) {
    const value = parseIPv4(bare);
    return value === null ? 'not an IP address' : ipv4Reason(value);
  }
  const value = isIP(bare.split('%')[0] ?? '') === 6 ? parseIPv6(bare) : null;
  if (value === null) return 'not an IP address';
  const refused = IPV6_REFUSED.find((range) => matches(value, 128, range));
  if (refused) return refused[2];
  // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) carry an IPv4 address that is what is reached.
  if (matches(value, 128, v6('64:ff9b::', 96, ''))) {
    const embedded = ipv4Reason(value & 0xffffffffn);
    return embedded ? `a NAT64 address of ${embedded}` : null;
  }
  if (matches(value, 128, v6('2002::', 16, ''))) {
    const embedded = ipv4Reason((value >> 80n) & 0xffffffffn);
    return embedded ? `a 6to4 address of ${embedded}` : null;
  }
  if (!matches(value, 128, v6('2000::', 3, ''))) return 'outside IPv6 global unicast (2000::/3)';
  return null;
}

/** Why a URL host (WHATWG-normalized: numeric IPv4 spellings are already dotted decimal) is
 * refused before any lookup, or null when only its resolved addresses can tell. */
export function blockedHostReason(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (isIP(bare.split('%')[0] ?? '') !== 0) return blockedAddressReason(bare);
  const name = bare.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return 'a localhost name (loopback)';
  if (name === '') return 'an empty host';
  return null;
}

/** A `lookup` for net/tls connect options: resolves with `resolve`, fails with SsrfBlockedError
 * when any address is refused, and otherwise hands the checked addresses to the socket. */
export function createGuardedLookup({ resolve = systemResolver }: { resolve?: HostResolver } = {}): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        // Any refused address refuses the name: a client that tried the next address on failure
        // (Happy Eyeballs) could otherwise still reach it.
        for (const { address } of addresses) {
          const reason = blockedAddressReason(address);
          if (reason) {
            callback(new SsrfBlockedError(`${hostname} resolves to ${address}, ${reason}`), '', 0);
            return;
          }
        }
        const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
        const usable = family === 0 ? addresses : addresses.filter((entry) => entry.family === family);
        if (usable.length === 0) {
          const error = Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
          callback(error, '', 0);
          return;
        }
        if (options.all)
          callback(
            null,
            usable.map((entry) => ({ address: entry.address, family: entry.family })),
          );
        else callback(null, usable[0]?.address ?? '', usable[0]?.family ?? 4);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
