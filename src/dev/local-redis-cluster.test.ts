// A local Redis Cluster serves keys over every slot through ioredis' Cluster client, survives a
// primary being killed (its replica takes over its slots with the replicated data), swaps roles on
// a manual failover, takes a killed node back as a replica, and leaves nothing behind once stopped.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalRedisCluster, type LocalRedisCluster } from './local-redis-cluster.js';

const KEY_COUNT = 200;
const keys = Array.from({ length: KEY_COUNT }, (_, index) => `cluster-test:${index}`);

describe('startLocalRedisCluster', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'buildfleet-cluster-'));
  let cluster: LocalRedisCluster | undefined;
  let client: Cluster | undefined;

  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const readAll = async (reader: Cluster) => Promise.all(keys.map((key) => reader.get(key)));

  it('serves every slot and keeps the data through a killed primary and a manual failover', { timeout: 180_000 }, async () => {
    cluster = await startLocalRedisCluster({ primaries: 3, replicasPerPrimary: 1, dataDir });
    expect(cluster.nodeUrls).toHaveLength(6);
    expect(cluster.seeds).toBe(cluster.nodeUrls.join(','));

    const initial = await cluster.topology();
    const primaries = initial.filter((node) => node.role === 'primary');
    const replicas = initial.filter((node) => node.role === 'replica');
    expect(primaries).toHaveLength(3);
    expect(replicas).toHaveLength(3);
    expect(primaries.reduce((sum, node) => sum + node.slots, 0)).toBe(16384);
    for (const primary of primaries) {
      expect(primary.slots).toBeGreaterThanOrEqual(5461);
      expect(primary.slots).toBeLessThanOrEqual(5462);
      expect(replicas.filter((replica) => replica.primaryId === primary.id)).toHaveLength(1);
    }

    const seed = new URL(cluster.nodeUrls[0]!);
    client = new Cluster([{ host: seed.hostname, port: Number(seed.port) }], { maxRedirections: 16, retryDelayOnFailover: 100 });
    client.on('error', () => undefined);
    await Promise.all(keys.map((key, index) => client!.set(key, `value-${index}`)));
    const expected = keys.map((_, index) => `value-${index}`);
    expect(await readAll(client)).toEqual(expected);

    // The keys really are spread (every primary holds some), and WAIT on the connections that wrote
    // them makes sure each replica has them before a primary is killed.
    const writers = client.nodes('master');
    expect(writers).toHaveLength(3);
    for (const writer of writers) {
      expect(await writer.dbsize()).toBeGreaterThan(0);
      expect(await writer.call('WAIT', '1', '60000')).toBe(1);
    }

    const victim = primaries[0]!;
    const victimReplica = replicas.find((replica) => replica.primaryId === victim.id)!;
    const killed = await cluster.killPrimary(victim.port);
    expect(killed.promotedPort).toBe(victimReplica.port);
    console.info(`killPrimary: replica ${killed.promotedPort} promoted in ${killed.tookMs} ms`);

    expect(await readAll(client)).toEqual(expected);
    const afterKill = await cluster.topology();
    expect(afterKill.find((node) => node.port === victim.port)).toBeUndefined();
    expect(afterKill.find((node) => node.port === killed.promotedPort)).toMatchObject({ role: 'primary', slots: victim.slots });

    // A key in the slots the killed primary owned is writable and lands on the promoted replica.
    const promoted = new Redis({ host: '127.0.0.1', port: killed.promotedPort, lazyConnect: true });
    await promoted.connect();
    // The hash tag puts the new key in the same slot as a key the promoted node already holds.
    const movedKey = `{${await keyOnNode(promoted)}}:after-failover`;
    await client.set(movedKey, 'written-after-failover');
    expect(await promoted.get(movedKey)).toBe('written-after-failover');
    promoted.disconnect();

    const secondPrimary = primaries[1]!;
    const secondReplica = replicas.find((replica) => replica.primaryId === secondPrimary.id)!;
    const switched = await cluster.failover(secondPrimary.port);
    expect(switched.promotedPort).toBe(secondReplica.port);
    console.info(`failover: replica ${switched.promotedPort} took over in ${switched.tookMs} ms`);
    const afterFailover = await cluster.topology();
    const newPrimary = afterFailover.find((node) => node.port === secondReplica.port)!;
    expect(newPrimary).toMatchObject({ role: 'primary', slots: secondPrimary.slots });
    expect(afterFailover.find((node) => node.port === secondPrimary.port)).toMatchObject({ role: 'replica', primaryId: newPrimary.id });
    expect(await readAll(client)).toEqual(expected);

    await cluster.restartNode(victim.port);
    const afterRestart = await cluster.topology();
    const promotedView = afterRestart.find((node) => node.port === killed.promotedPort)!;
    expect(afterRestart.find((node) => node.port === victim.port)).toMatchObject({ role: 'replica', primaryId: promotedView.id });

    client.disconnect();
    client = undefined;
    await cluster.stop();
    for (const url of cluster.nodeUrls) expect(existsSync(join(dataDir, new URL(url).port))).toBe(false);
    const late = new Redis({ host: '127.0.0.1', port: victim.port, lazyConnect: true, retryStrategy: () => null });
    late.on('error', () => undefined);
    await expect(late.connect()).rejects.toThrow();
  });
});

/** One of the test keys stored on `node`, hence a key in a slot that node serves. */
async function keyOnNode(node: Redis): Promise<string> {
  const [, found] = (await node.scan('0', 'MATCH', 'cluster-test:*', 'COUNT', '1000')) as [string, string[]];
  if (!found[0]) throw new Error(`node ${node.options.port} holds none of the test keys`);
  return found[0];
}
