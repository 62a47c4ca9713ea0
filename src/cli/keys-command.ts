// `buildfleet keys create|list|revoke|bootstrap`: API key management, and `keys policy`: a tenant's limits
// (keys-policy-command.ts). Operator tasks, so they talk to Redis directly (REDIS_URL and
// BUILDFLEET_PREFIX, else the local dev fleet's Redis) instead of through an API that would need a
// key to begin with.
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { redisTargetOf } from '../domain/redis-target.js';
import { connectRedis } from '../redis/redis-connection.js';
import { API_KEY_SCOPES, parseScopes } from '../auth/api-key-scopes.js';
import { ApiKeyStore } from '../auth/api-key-store.js';
import { TENANT_PATTERN } from '../domain/tenant-id.js';
import { loadConfig } from '../config.js';
import { createKeySpace } from '../engine/index.js';
import { DEV_STATE_FILE } from './dev-state.js';
import { POLICY_USAGE, PolicyUsageError, runPolicyCommand } from './keys-policy-command.js';

export const KEYS_USAGE = `Usage:
  buildfleet keys create --tenant T --scopes runs:read,runs:write[,admin] [--name N]
  buildfleet keys list [--tenant T] [--json]
  buildfleet keys revoke <keyId>
  buildfleet keys bootstrap [--tenant T] [--json]   the deployment's first admin key, once
${POLICY_USAGE}`;

class KeysUsageError extends Error {}

/** The bootstrap key's tenant unless --tenant names another: runs submitted with it land there. */
export const BOOTSTRAP_TENANT = 'admin';

/** The Redis the environment names (REDIS_URL or BUILDFLEET_REDIS_CLUSTER_NODES), else the running
 * dev fleet's (its server or its local cluster, from its state file), else the configured default. */
function redisEnvironmentFor(environment: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (environment.REDIS_URL || environment.BUILDFLEET_REDIS_CLUSTER_NODES) return environment;
  if (existsSync(DEV_STATE_FILE)) {
    const state = JSON.parse(readFileSync(DEV_STATE_FILE, 'utf8')) as { redisUrl?: string; redisClusterSeeds?: string | null };
    if (state.redisClusterSeeds) return { ...environment, BUILDFLEET_REDIS_CLUSTER_NODES: state.redisClusterSeeds };
    if (state.redisUrl) return { ...environment, REDIS_URL: state.redisUrl };
  }
  return environment;
}

/** Runs a keys subcommand; returns the exit code. `print` receives stdout lines. */
export async function runKeysCommand({
  argv,
  environment = process.env,
  print = (line: string) => console.log(line),
}: {
  argv: string[];
  environment?: NodeJS.ProcessEnv;
  print?: (line: string) => void;
}): Promise<number> {
  const [subcommand, ...rest] = argv;
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { tenant: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean', default: false } },
    });
    if (subcommand !== 'create' && subcommand !== 'list' && subcommand !== 'revoke' && subcommand !== 'bootstrap' && subcommand !== 'policy') {
      throw new KeysUsageError(subcommand ? `unknown keys subcommand "${subcommand}"` : 'keys needs a subcommand');
    }
    if (values.tenant !== undefined && !TENANT_PATTERN.test(values.tenant)) {
      throw new KeysUsageError(`invalid tenant "${values.tenant}": 1-64 letters, digits, _ and -`);
    }
    const config = loadConfig(redisEnvironmentFor(environment));
    const redis = connectRedis(redisTargetOf(config), 'cli');
    redis.on('error', () => undefined);
    const keys = createKeySpace(config.BUILDFLEET_PREFIX);
    const store = new ApiKeyStore({ redis, keys });
    try {
      switch (subcommand) {
        case 'policy':
          return await runPolicyCommand({ positionals, json: values.json, config, redis, keys, print });
        case 'create': {
          if (!values.tenant) throw new KeysUsageError('keys create needs --tenant');
          if (!values.scopes) throw new KeysUsageError('keys create needs --scopes, e.g. --scopes runs:read,runs:write');
          let scopes;
          try {
            scopes = parseScopes(values.scopes);
          } catch (error) {
            throw new KeysUsageError((error as Error).message);
          }
          const created = await store.create({ tenant: values.tenant, scopes, name: values.name ?? null });
          if (values.json) {
            print(JSON.stringify({ id: created.id, tenant: values.tenant, scopes, key: created.token }));
          } else {
            print(`key id:  ${created.id}`);
            print(`tenant:  ${values.tenant}`);
            print(`scopes:  ${scopes.join(',')}`);
            print(`key:     ${created.token}`);
            print('The key is shown only now; store it safely (it is kept only as a hash).');
          }
          return 0;
        }
        case 'bootstrap': {
          // The first key of a deployment (docs/deploy.md, "The first API key"): every scope, made
          // once. Safe to run again (a retried Job, a second operator): it then creates nothing and
          // prints no key, since the token of the first was shown once and only its hash is kept.
          const tenant = values.tenant ?? BOOTSTRAP_TENANT;
          const scopes = [...API_KEY_SCOPES];
          const outcome = await store.createBootstrap({ tenant, scopes, name: 'bootstrap' });
          if (outcome.created) {
            if (values.json) {
              print(JSON.stringify({ created: true, id: outcome.id, tenant, scopes, key: outcome.token }));
            } else {
              print(`key id:  ${outcome.id}`);
              print(`tenant:  ${tenant}`);
              print(`scopes:  ${scopes.join(',')}`);
              print(`key:     ${outcome.token}`);
              print('The bootstrap key is shown only now and never again (it is kept only as a hash); store it safely.');
            }
            return 0;
          }
          const existing = outcome.existing;
          if (values.json) {
            print(
              JSON.stringify({
                created: false,
                id: outcome.id,
                tenant: existing?.tenant ?? null,
                created_at: existing?.created ?? null,
                revoked: existing?.revoked ?? null,
              }),
            );
            return 0;
          }
          const state =
            existing === null
              ? 'its record is gone'
              : `tenant ${existing.tenant}, created ${existing.created}, ${existing.revoked ? `revoked ${existing.revoked}` : 'active'}`;
          print(`A bootstrap key already exists: ${outcome.id} (${state}). Nothing was created; its key is not shown again.`);
          print('More keys: buildfleet keys create --tenant T --scopes runs:read,runs:write[,admin]');
          return 0;
        }
        case 'list': {
          const keys = await store.list(values.tenant === undefined ? {} : { tenant: values.tenant });
          if (values.json) {
            print(JSON.stringify(keys));
            return 0;
          }
          if (keys.length === 0) {
            print('no keys');
            return 0;
          }
          for (const key of keys) {
            const state = key.revoked ? `revoked ${key.revoked}` : 'active';
            print(`${key.id}  ${key.tenant}  ${key.scopes.join(',')}  created ${key.created}  ${state}${key.name ? `  "${key.name}"` : ''}`);
          }
          return 0;
        }
        case 'revoke': {
          const keyId = positionals[0];
          if (!keyId) throw new KeysUsageError('keys revoke needs a key id (see buildfleet keys list)');
          const outcome = await store.revoke(keyId);
          if (outcome === 'not_found') {
            console.error(`buildfleet: no key ${keyId}`);
            return 1;
          }
          print(outcome === 'revoked' ? `revoked ${keyId}` : `${keyId} was already revoked`);
          return 0;
        }
      }
    } finally {
      redis.disconnect();
    }
  } catch (error) {
    if (error instanceof KeysUsageError || error instanceof PolicyUsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`buildfleet: ${(error as Error).message}\n\n${KEYS_USAGE}`);
      return 2;
    }
    throw error;
  }
}
