// Redis connections. BullMQ workers block on Redis and must never give up on a command
// (maxRetriesPerRequest: null); API reads fail fast instead so /readyz tells the truth.
import { hostname } from 'node:os';
import { Redis } from 'ioredis';

export function connectRedis(url: string, purpose: 'worker' | 'api' = 'worker'): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: purpose === 'worker' ? null : 3,
    enableReadyCheck: true,
    connectionName: `buildfleet-${purpose}`,
  });
}

/** host:pid:role, the identity logs and jobs carry for a worker process. */
export function workerIdentity(role: string): string {
  return `${hostname()}:${process.pid}:${role}`;
}
