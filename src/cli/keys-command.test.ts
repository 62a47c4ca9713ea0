import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { deletePrefix, testRedisUrl, uniquePrefix } from '../../test/support/redis.js';
import { ApiKeyStore } from '../auth/api-key-store.js';
import { createKeySpace } from '../engine/keys.js';
import { runKeysCommand } from './keys-command.js';

const prefix = uniquePrefix('keyscmd');
const environment = { REDIS_URL: testRedisUrl(), BUILDFLEET_PREFIX: prefix };
const redis = new Redis(testRedisUrl());
const store = new ApiKeyStore({ redis, keys: createKeySpace(prefix) });

afterAll(async () => {
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

async function run(argv: string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await runKeysCommand({ argv, environment, print: (line) => lines.push(line) });
  return { code, lines };
}

describe('buildfleet keys', () => {
  it('creates a key (shown once), lists it without the secret, and revokes it', async () => {
    const created = await run(['create', '--tenant', 'acme', '--scopes', 'runs:read,runs:write', '--name', 'ci', '--json']);
    expect(created.code).toBe(0);
    const { id, key } = JSON.parse(created.lines[0]!) as { id: string; key: string };
    expect(key).toMatch(/^bf_/);
    expect(await store.verify(key)).toEqual({ keyId: id, tenant: 'acme', scopes: ['runs:read', 'runs:write'] });

    const listed = await run(['list', '--tenant', 'acme']);
    expect(listed.code).toBe(0);
    expect(listed.lines).toHaveLength(1);
    expect(listed.lines[0]).toContain(id);
    expect(listed.lines[0]).toContain('runs:read,runs:write');
    expect(listed.lines.join('\n')).not.toContain(key);
    expect((await run(['list', '--tenant', 'nobody'])).lines).toEqual(['no keys']);

    expect(await run(['revoke', id])).toEqual({ code: 0, lines: [`revoked ${id}`] });
    expect(await store.verify(key)).toBeNull();
    expect((await run(['list', '--json'])).lines[0]).toContain('"revoked":"');
  });

  it('prints the key with a warning in text form', async () => {
    const created = await run(['create', '--tenant', 'acme', '--scopes', 'admin']);
    expect(created.code).toBe(0);
    expect(created.lines.find((line) => line.startsWith('key:'))).toMatch(/^key: +bf_/);
    expect(created.lines.at(-1)).toContain('shown only now');
  });

  it('refuses bad input with exit code 2 and unknown ids with 1', async () => {
    expect((await run(['create', '--tenant', 'acme', '--scopes', 'runs:delete'])).code).toBe(2);
    expect((await run(['create', '--scopes', 'runs:read'])).code).toBe(2);
    expect((await run(['create', '--tenant', 'bad tenant', '--scopes', 'runs:read'])).code).toBe(2);
    expect((await run(['rotate'])).code).toBe(2);
    expect((await run(['revoke'])).code).toBe(2);
    expect((await run(['revoke', 'key_0000000000000000'])).code).toBe(1);
  });
});
