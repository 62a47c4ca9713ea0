// Where clients reach one of the fleet's listeners (the API, the sites origin): its public URL
// when one is configured, else the listener's own http://host:port. A wildcard host (0.0.0.0, ::)
// is an address to listen on, not one to reach: as a link or a trusted origin it means "this
// machine", which on a tool worker is the worker's own loopback (issue #16). The sites origin is
// trusted by the fetch tools, so config.ts refuses a wildcard there unless a public URL is set; the
// API's default URL, only ever a link, names loopback instead, as api-process.ts does for its own.

/** Hosts that name every address of the machine, as WHATWG URL parsing writes them (it turns `0`,
 * `0x0` and `[0:0::0]` into these), including the IPv4-mapped IPv6 form of 0.0.0.0. */
const UNSPECIFIED_HOSTS: ReadonlySet<string> = new Set(['0.0.0.0', '[::]', '[::ffff:0:0]']);

/** A listen host as a URL writes it: IPv6 literals in brackets. */
function urlHostOf(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** The host as a URL parser normalizes it, or null when it is no host at all. */
function normalizedHostOf(host: string): string | null {
  try {
    return new URL(`http://${urlHostOf(host)}/`).hostname;
  } catch {
    return null;
  }
}

/** Whether a host (a listen host, or a URL's hostname) names every address of the machine. */
export function isUnspecifiedHost(host: string): boolean {
  const normalized = normalizedHostOf(host);
  return normalized !== null && UNSPECIFIED_HOSTS.has(normalized);
}

/** The base URL of a listener without a trailing slash: publicUrl, else http://host:port with a
 * wildcard host read as this machine's loopback. Callers that trust the result (the sites origin)
 * must refuse a wildcard host first (config.ts). */
export function listenerBaseUrl({ publicUrl, host, port }: { publicUrl: string | undefined; host: string; port: number }): string {
  if (publicUrl !== undefined) return publicUrl.replace(/\/$/, '');
  if (!isUnspecifiedHost(host)) return `http://${urlHostOf(host)}:${port}`;
  return `http://${normalizedHostOf(host) === '[::]' ? '[::1]' : '127.0.0.1'}:${port}`;
}
