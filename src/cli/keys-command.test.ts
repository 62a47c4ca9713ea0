import { afterAll, describe, expect, it } from 'vitest';
import { connectTestRedis, deletePrefix, testRedisEnv, uniquePrefix } from '../../test/support/redis.js';
import { ApiKeyStore } from '../auth/api-key-store.js';
import { createKeySpace } from '../engine/index.js';
import { runKeysCommand } from './keys-command.js';

const prefix = uniquePrefix('keyscmd');
// The suite's Redis: in the cluster pass, `buildfleet keys` runs against the cluster's seeds.
const environment: Record<string, string> = { ...testRedisEnv(), BUILDFLEET_PREFIX: prefix };
const redis = connectTestRedis();
const store = new ApiKeyStore({ redis, keys: createKeySpace(prefix) });

afterAll(async () => {
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

async function run(argv: string[], env: Record<string, string> = environment): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await runKeysCommand({ argv, environment: env, print: (line) => lines.push(line) });
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

  it('sets, reads and resets a tenant’s policy: field=value pairs merged into its overrides, typed and validated', async () => {
    const set = await run(['policy', 'set', 'acme', 'maxTurns=12', 'maxConcurrentRuns=3', 'allowedModels=claude-haiku-4-5, claude-sonnet-4-6', '--json']);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.lines[0]!)).toMatchObject({
      tenant: 'acme',
      overrides: { maxTurns: 12, maxConcurrentRuns: 3, allowedModels: ['claude-haiku-4-5', 'claude-sonnet-4-6'] },
      policy: { maxTurns: 12, maxConcurrentRuns: 3, allowedModels: ['claude-haiku-4-5', 'claude-sonnet-4-6'], defaultRunTokenBudget: 400_000 },
    });
    // Merged: the other overrides stay; `field=` removes one (the fleet's default applies again).
    const merged = await run(['policy', 'set', 'acme', 'dailySpendLimitUsd=2.5', 'maxConcurrentRuns=', '--json']);
    expect(JSON.parse(merged.lines[0]!).overrides).toEqual({ maxTurns: 12, allowedModels: ['claude-haiku-4-5', 'claude-sonnet-4-6'], dailySpendLimitUsd: 2.5 });
    const text = await run(['policy', 'get', 'acme']);
    expect(text.code).toBe(0);
    expect(text.lines[0]).toBe('tenant acme');
    expect(text.lines.find((line) => line.includes('maxTurns'))).toMatch(/12 +\(set for this tenant\)/);
    expect(text.lines.find((line) => line.includes('maxConcurrentRuns'))).toMatch(/20 +\(fleet default\)/);
    // The API reads the same store.
    const { TenantPolicyStore } = await import('../engine/index.js');
    expect(await new TenantPolicyStore(redis, createKeySpace(prefix)).get('acme')).toEqual(JSON.parse(merged.lines[0]!).overrides);

    const reset = await run(['policy', 'reset', 'acme', '--json']);
    expect(JSON.parse(reset.lines[0]!)).toMatchObject({ overrides: {}, policy: { maxTurns: 40, allowedModels: null } });
  });

  it('sets allowed providers from a comma-separated list, each one this fleet has', async () => {
    const withVllm = { ...environment, BUILDFLEET_PROVIDERS: JSON.stringify({ vllm: { kind: 'openai_compatible', baseUrl: 'http://gpu-1:8000/v1' } }) };
    const set = await run(['policy', 'set', 'providers', 'allowedProviders=vllm, anthropic', '--json'], withVllm);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.lines[0]!)).toMatchObject({ overrides: { allowedProviders: ['vllm', 'anthropic'] }, policy: { allowedProviders: ['vllm', 'anthropic'] } });
    expect((await run(['policy', 'get', 'providers'], withVllm)).lines.find((line) => line.includes('allowedProviders'))).toMatch(/vllm,anthropic +\(set for this tenant\)/);
    // A name the fleet has not (here: without BUILDFLEET_PROVIDERS, only `anthropic`), a name that is
    // no provider name, and a repeated one: refused, the stored policy unchanged.
    for (const [assignment, env] of [['allowedProviders=vllm', environment], ['allowedProviders=vllm,gpu-9', withVllm], ['allowedProviders=Bad Name', withVllm], ['allowedProviders=vllm,vllm', withVllm]] as const) {
      expect((await run(['policy', 'set', 'providers', assignment], env)).code, assignment).toBe(2);
    }
    expect(JSON.parse((await run(['policy', 'get', 'providers', '--json'], withVllm)).lines[0]!).overrides).toEqual({ allowedProviders: ['vllm', 'anthropic'] });
    expect(JSON.parse((await run(['policy', 'set', 'providers', 'allowedProviders=', '--json'], withVllm)).lines[0]!).policy.allowedProviders).toBeNull();
  });

  it('refuses a policy that is not valid, leaving the stored one as it was (exit 2)', async () => {
    expect((await run(['policy', 'set', 'acme', 'maxTurns=7'])).code).toBe(0);
    for (const assignment of ['maxTurns=0', 'maxTurns=201', 'maxTurns=ten', 'maxTurns=0x10', 'allowedModels=gpt-4o', 'allowedModels=a,a', 'maxTurn=5', 'maxTurns', 'defaultRunBudgetUsd=5']) {
      const args = assignment === 'defaultRunBudgetUsd=5' ? ['policy', 'set', 'acme', assignment, 'maxRunBudgetUsd=1'] : ['policy', 'set', 'acme', assignment];
      expect((await run(args)).code, assignment).toBe(2);
    }
    expect(JSON.parse((await run(['policy', 'get', 'acme', '--json'])).lines[0]!).overrides).toEqual({ maxTurns: 7 });
    for (const argv of [['policy'], ['policy', 'get'], ['policy', 'drop', 'acme'], ['policy', 'get', 'bad tenant'], ['policy', 'set', 'acme']]) {
      expect((await run(argv)).code, argv.join(' ')).toBe(2);
    }
  });
});
