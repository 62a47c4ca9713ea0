// The kill switch's keys before their hash tag, on real Redis: a deployment upgraded on one server
// keeps a tripped switch tripped, and processes starting together move each key once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestRedis, deletePrefix, uniquePrefix } from '../../test/support/redis.js';
import { KillSwitch } from '../safety/kill-switch.js';
import { isCluster, type RedisClient } from '../redis/redis-connection.js';
import { fenceArgs } from './effects/write-fence.js';
import { createKeySpace, type KeySpace } from './keys.js';
import { killSwitchScopesKey, killSwitchTripsKey, scopeWindowKey } from './kill-switch-keys.js';

const settings = { threshold: 0.25, minVolume: 20, windowMs: 60_000, cooldownMs: 0, fleetMinTenants: 1, upstreamMinTenants: 2 };
const clients: RedisClient[] = [];
const prefixes: string[] = [];
let redis: RedisClient;

/** A connection of its own: the move is remembered per connection, as per process. */
function connection(): RedisClient {
  const client = connectTestRedis();
  clients.push(client);
  return client;
}

function freshKeys(): KeySpace {
  const prefix = uniquePrefix('ksmove');
  prefixes.push(prefix);
  return createKeySpace(prefix);
}

/** A tripped deployment as the version before the hash tag left it. */
async function seedLegacy(keys: KeySpace): Promise<void> {
  const { prefix } = keys;
  await redis.hset(`${prefix}:killswitch`, 'mode', 'read_only', 'reason', 'tripped before the upgrade', 'since_ms', Date.now(), 'source', 'auto');
  await redis.hset(`${prefix}:killswitch:scopes`, 'tenant:acme', JSON.stringify({ mode: 'read_only', reason: 'acme spiked', since_ms: Date.now(), source: 'auto' }));
  await redis.lpush(`${prefix}:killswitch:trips`, 'trip-record');
  await redis.hset(`${prefix}:toolout`, 'n:1', '3');
  await redis.hset(`${prefix}:toolout:tenant:acme`, 'n:1', '5', 'x:1', '4');
  await redis.pexpire(`${prefix}:toolout:tenant:acme`, 60_000);
}

beforeAll(() => {
  redis = connection();
});
afterAll(async () => {
  for (const prefix of prefixes) await deletePrefix(redis, prefix);
  for (const client of clients) await client.quit();
});

describe.skipIf(process.env.BUILDFLEET_REDIS_CLUSTER_NODES)('the kill switch keys of a deployment from before the hash tag (one server)', () => {
  it('keeps a tripped switch tripped after the move', async () => {
    const keys = freshKeys();
    await seedLegacy(keys);
    const killSwitch = new KillSwitch({ redis: connection(), keys, settings });
    const state = await killSwitch.getState();
    expect(state).toMatchObject({ mode: 'read_only', reason: 'tripped before the upgrade' });
    expect(state.scopes.map((scope) => scope.scopeId)).toEqual(['fleet', 'tenant:acme']);
    expect(await killSwitch.claimWrite({ runId: 'run_after', tenant: 'other' })).toMatchObject({ verdict: 'refuse', scopeId: 'fleet' });
    // Every key under its new name, the windows with their expiry; none left under the old.
    expect(await redis.lrange(killSwitchTripsKey(keys), 0, -1)).toEqual(['trip-record']);
    expect(await redis.hgetall(scopeWindowKey(keys, 'tenant:acme'))).toEqual({ 'n:1': '5', 'x:1': '4' });
    expect(await redis.pttl(scopeWindowKey(keys, 'tenant:acme'))).toBeGreaterThan(0);
    expect(await redis.hget(keys.toolOutcomes(), 'n:1')).toBe('3');
    const legacy = [`${keys.prefix}:killswitch`, `${keys.prefix}:killswitch:scopes`, `${keys.prefix}:killswitch:trips`, `${keys.prefix}:toolout`, `${keys.prefix}:toolout:tenant:acme`];
    expect(await redis.exists(...legacy)).toBe(0);
  });

  it('moves once when several processes start together, and never over a key of the new layout', async () => {
    const keys = freshKeys();
    await seedLegacy(keys);
    // The new layout already holds a scope entry (written by an upgraded process): kept as it is.
    await redis.hset(killSwitchScopesKey(keys), 'tenant:newer', JSON.stringify({ mode: 'read_only', reason: 'newer' }));
    const switches = Array.from({ length: 4 }, () => new KillSwitch({ redis: connection(), keys, settings }));
    const states = await Promise.all(switches.map((killSwitch) => killSwitch.getState()));
    for (const state of states) expect(state.mode).toBe('read_only');
    expect(Object.keys(await redis.hgetall(killSwitchScopesKey(keys)))).toEqual(['tenant:newer']);
    expect(await redis.lrange(killSwitchTripsKey(keys), 0, -1)).toEqual(['trip-record']);
  });

  it('is done by the write fence too, before a process has used the switch', async () => {
    const keys = freshKeys();
    await seedLegacy(keys);
    const client = connection();
    await fenceArgs({ redis: client, keys }, undefined);
    expect(await redis.hget(keys.killSwitch(), 'mode')).toBe('read_only');
  });
});

describe.runIf(process.env.BUILDFLEET_REDIS_CLUSTER_NODES)('the kill switch keys on a cluster', () => {
  it('moves nothing: the old names never ran on a cluster', async () => {
    expect(isCluster(redis)).toBe(true);
    const keys = freshKeys();
    await redis.hset(`${keys.prefix}:killswitch`, 'mode', 'read_only');
    const killSwitch = new KillSwitch({ redis: connection(), keys, settings });
    expect((await killSwitch.getState()).mode).toBe('read_write');
    expect(await redis.hget(`${keys.prefix}:killswitch`, 'mode')).toBe('read_only');
  });
});
