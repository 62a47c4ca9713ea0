// The key store on real Redis: a deployment that ran before the keys had a hash tag keeps its keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisClient } from '../redis/redis-connection.js';
import { createKeySpace } from '../engine/index.js';
import { connectTestRedis, deletePrefix, uniquePrefix } from '../../test/support/redis.js';
import { ApiKeyStore, hashApiKey } from './api-key-store.js';

let redis: RedisClient;
const prefix = uniquePrefix('apikeys');
const keys = createKeySpace(prefix);

beforeAll(() => {
  redis = connectTestRedis();
});
afterAll(async () => {
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

// The old names only ever existed on one server (the fleet ran on no cluster before the tag).
describe.skipIf(process.env.BUILDFLEET_REDIS_CLUSTER_NODES)('API keys stored under the names before the hash tag', () => {
  it('are moved once and still verify; the bootstrap marker moves with them', async () => {
    const token = `bf_${'a'.repeat(43)}`;
    const record = { hash: hashApiKey(token), tenant: 'acme', scopes: ['runs:read'], name: 'old', created: '2026-01-01T00:00:00.000Z', revoked: null };
    await redis.hset(`${prefix}:apikeys`, 'key_0123456789abcdef', JSON.stringify(record));
    await redis.hset(`${prefix}:apikeys:byhash`, record.hash, 'key_0123456789abcdef');
    await redis.set(`${prefix}:apikeys:bootstrap`, 'key_0123456789abcdef');

    const [first, second] = [new ApiKeyStore({ redis, keys }), new ApiKeyStore({ redis, keys })];
    const [verified, again] = await Promise.all([first.verify(token), second.verify(token)]);
    expect(verified).toEqual({ keyId: 'key_0123456789abcdef', tenant: 'acme', scopes: ['runs:read'] });
    expect(again).toEqual(verified);
    expect(await redis.exists(`${prefix}:apikeys`, `${prefix}:apikeys:byhash`, `${prefix}:apikeys:bootstrap`)).toBe(0);
    // The bootstrap already happened under the old name: it does not happen again.
    expect(await first.createBootstrap({ tenant: 'admin', scopes: ['admin'], name: 'bootstrap' })).toMatchObject({ created: false, id: 'key_0123456789abcdef' });
    // A key made after the move sits beside the moved ones, and nothing moves over it again.
    const made = await first.create({ tenant: 'acme', scopes: ['runs:write'] });
    expect((await new ApiKeyStore({ redis, keys }).list()).map((info) => info.id).sort()).toEqual(['key_0123456789abcdef', made.id].sort());
  });
});
