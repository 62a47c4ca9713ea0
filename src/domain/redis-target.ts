// Where the fleet's Redis is: one server (REDIS_URL) or a Redis Cluster (BUILDFLEET_REDIS_CLUSTER_NODES,
// docs/scaling.md). Parsed once from the environment, so a bad seed list fails at start with the
// seed it is about rather than at the first command.

export interface ClusterSeed {
  host: string;
  port: number;
}

export type RedisTarget =
  | { kind: 'single'; url: string }
  | {
      kind: 'cluster';
      seeds: ClusterSeed[];
      /** ACL user and password, the same on every node (a cluster has one ACL set per node, kept
       * alike by the operator; the seeds' URLs must agree). */
      username: string | null;
      password: string | null;
      /** rediss:// seeds: TLS to every node, the ones discovered from CLUSTER SLOTS included. */
      tls: boolean;
    };

/** Parses `redis://[user:password@]host:port,…` (or rediss://). Throws an Error naming the seed. */
export function parseClusterSeeds(text: string): Extract<RedisTarget, { kind: 'cluster' }> {
  const parts = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  if (parts.length === 0) throw new Error('expected one or more redis:// or rediss:// seed URLs, comma-separated');
  const seeds: ClusterSeed[] = [];
  let credentials: string | null = null;
  let scheme: string | null = null;
  for (const part of parts) {
    let url: URL;
    try {
      url = new URL(part);
    } catch {
      throw new Error(`seed "${redactSeed(part)}" is not a URL (expected redis://host:port)`);
    }
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new Error(`seed "${redactSeed(part)}": expected redis:// or rediss://`);
    if (!url.hostname || !url.port) throw new Error(`seed "${redactSeed(part)}": expected host and port`);
    if (url.pathname && url.pathname !== '/' && url.pathname !== '/0') throw new Error(`seed "${redactSeed(part)}": a cluster has database 0 only`);
    if (scheme !== null && url.protocol !== scheme) throw new Error('every seed must use the same scheme (all redis:// or all rediss://)');
    scheme = url.protocol;
    const seedCredentials = `${url.username}:${url.password}`;
    if (credentials !== null && seedCredentials !== credentials) throw new Error('every seed must carry the same user and password');
    credentials = seedCredentials;
    seeds.push({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) });
  }
  const [username = '', password = ''] = (credentials ?? ':').split(/:(.*)/s);
  return {
    kind: 'cluster',
    seeds,
    username: username ? decodeURIComponent(username) : null,
    password: password ? decodeURIComponent(password) : null,
    tls: scheme === 'rediss:',
  };
}

/** The seed as an error may print it: without its password. */
function redactSeed(seed: string): string {
  // Everything between the scheme and the last '@' may be credentials (a password may hold '/').
  const at = seed.lastIndexOf('@');
  const start = seed.indexOf('//');
  if (at === -1 || start === -1 || at < start) return seed;
  const user = seed.slice(start + 2, at).split(':')[0];
  return `${seed.slice(0, start + 2)}${user}:***${seed.slice(at)}`;
}

/** The target the configuration names: the cluster when its seeds are set, else REDIS_URL. */
export function redisTargetOf(config: {
  REDIS_URL: string;
  BUILDFLEET_REDIS_CLUSTER_NODES?: Extract<RedisTarget, { kind: 'cluster' }> | undefined;
}): RedisTarget {
  return config.BUILDFLEET_REDIS_CLUSTER_NODES ?? { kind: 'single', url: config.REDIS_URL };
}
