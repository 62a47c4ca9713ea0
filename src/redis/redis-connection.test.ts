// Connections that must give up: a CLI pointed at a cluster it cannot reach fails instead of
// waiting forever (the Cluster client retries and queues by default).
import { describe, expect, it } from 'vitest';
import { freePorts } from '../dev/private-redis.js';
import { parseClusterSeeds } from '../domain/redis-target.js';
import { connectRedis } from './redis-connection.js';

describe('a CLI connection to an unreachable Redis Cluster', () => {
  it('rejects its command once its few retries are spent', async () => {
    // A port nothing listens on: taken and released at once.
    const [port] = await freePorts(1);
    const client = connectRedis(parseClusterSeeds(`redis://127.0.0.1:${port}`), 'cli');
    client.on('error', () => undefined);
    try {
      await expect(client.get('anything')).rejects.toThrow(/None of startup nodes is available/);
    } finally {
      client.disconnect();
    }
  }, 60_000);
});
