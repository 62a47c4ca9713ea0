// Redis connections, to one server or to a Redis Cluster (redis-target.ts). BullMQ workers block
// on Redis and must never give up on a command (maxRetriesPerRequest: null); API reads fail fast
// instead so /readyz tells the truth.
import { hostname } from 'node:os';
import { Cluster, Redis } from 'ioredis';
import type { RedisTarget } from '../domain/redis-target.js';

/** A connection to the fleet's Redis: one server or a cluster. Both speak the same commands; where
 * they differ (a SCAN sees one node of a cluster, a pipeline must stay in one slot) the code that
 * cares asks (`isCluster`, redis-scan.ts). */
export type RedisClient = Redis | Cluster;

export type RedisPurpose = 'worker' | 'api' | 'cli';

export function connectRedis(target: RedisTarget | string, purpose: RedisPurpose = 'worker'): RedisClient {
  const resolved: RedisTarget = typeof target === 'string' ? { kind: 'single', url: target } : target;
  const nodeOptions = {
    maxRetriesPerRequest: purpose === 'worker' ? null : purpose === 'api' ? 3 : 1,
    enableReadyCheck: true,
    connectionName: `buildfleet-${purpose}`,
    ...(purpose === 'cli' ? { connectTimeout: 5_000 } : {}),
  };
  if (resolved.kind === 'single') return new Redis(resolved.url, nodeOptions);
  const cluster = new Cluster(resolved.seeds, {
    redisOptions: {
      ...nodeOptions,
      ...(resolved.username ? { username: resolved.username } : {}),
      ...(resolved.password ? { password: resolved.password } : {}),
      ...(resolved.tls ? { tls: {} } : {}),
    },
    // Worker commands wait out a failover (a replica takes a few seconds to be promoted) rather
    // than fail the job: the same "never give up" as maxRetriesPerRequest: null on one server.
    maxRedirections: 32,
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 300,
    retryDelayOnTryAgain: 200,
    // Every read goes to the primary: the once-only steps read what they just wrote.
    scaleReads: 'master',
    enableReadyCheck: true,
    // Discovered nodes keep the seeds' TLS names: managed services announce IPs their
    // certificates name by host (ioredis README, "Special note: AWS ElastiCache Clusters with TLS").
    ...(resolved.tls ? { dnsLookup: (address: string, callback: (error: Error | null, address: string) => void) => callback(null, address) } : {}),
    // The CLI gives up on a cluster it cannot reach (a wrong seed) after a few seconds, as it does
    // on one server (maxRetriesPerRequest: 1): its pending commands are rejected, not kept forever.
    ...(purpose === 'cli' ? { clusterRetryStrategy: (times: number) => (times > 5 ? null : Math.min(times * 200, 1000)) } : {}),
  });
  // The API fails a request fast while the cluster is down (its single-server connection gives up
  // after 3 retries, so /readyz and the routes tell the truth): once the cluster has been ready,
  // commands are no longer queued while it reconnects (ioredis reads enableOfflineQueue per
  // command); before that, startup commands wait for the first connection.
  if (purpose !== 'worker') cluster.once('ready', () => (cluster.options.enableOfflineQueue = false));
  return cluster;
}

export function isCluster(client: RedisClient): client is Cluster {
  return (client as Cluster).isCluster === true;
}

/** A connection of its own for a blocking command (a blocked connection serves nobody else), under
 * its own CLIENT LIST name; on a cluster, a cluster client of its own. */
export function duplicateConnection(client: RedisClient, connectionName: string): RedisClient {
  if (isCluster(client)) return client.duplicate(undefined, { redisOptions: { ...client.options.redisOptions, connectionName } });
  return client.duplicate({ connectionName });
}

/** host:pid:role, the identity logs and jobs carry for a worker process. */
export function workerIdentity(role: string): string {
  return `${hostname()}:${process.pid}:${role}`;
}
