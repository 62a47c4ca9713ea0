// A tenant's policy overrides in Redis (the schema and its rules: src/domain/tenant-policy.ts), one
// JSON string per tenant under the tenant's hash tag (keys.ts). Read back like every other stored
// state: an override that does not decode throws naming the key, so a damaged policy is never
// mistaken for "no limits".
import type { RedisClient } from '../redis/redis-connection.js';
import { tenantPolicyOverridesSchema, type TenantPolicyOverrides } from '../domain/tenant-policy.js';
import { formatZodIssues } from '../domain/format-zod-issues.js';
import type { KeySpace } from './keys.js';

export class StoredTenantPolicyInvalid extends Error {
  readonly code = 'stored_tenant_policy_invalid';
  constructor(key: string, detail: string) {
    super(`The stored tenant policy ${key} is invalid: ${detail}`);
    this.name = 'StoredTenantPolicyInvalid';
  }
}

export class TenantPolicyStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
  ) {}

  /** The tenant's overrides; {} when it has none. */
  async get(tenant: string): Promise<TenantPolicyOverrides> {
    const key = this.keys.tenantPolicy(tenant);
    const raw = await this.redis.get(key);
    if (raw === null) return {};
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new StoredTenantPolicyInvalid(key, 'not JSON');
    }
    const parsed = tenantPolicyOverridesSchema.safeParse(value);
    if (!parsed.success) throw new StoredTenantPolicyInvalid(key, formatZodIssues({ issues: parsed.error.issues }));
    return parsed.data;
  }

  /** Replaces the tenant's overrides (validated again here: the store never writes what it could
   * not read back); an empty set removes the key, so the tenant follows the fleet's defaults. */
  async put(tenant: string, overrides: TenantPolicyOverrides): Promise<TenantPolicyOverrides> {
    const valid = tenantPolicyOverridesSchema.parse(overrides);
    const key = this.keys.tenantPolicy(tenant);
    if (Object.keys(valid).length === 0) await this.redis.del(key);
    else await this.redis.set(key, JSON.stringify(valid));
    return valid;
  }
}
