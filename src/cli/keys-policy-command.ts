// `buildfleet keys policy get|set|reset <tenant>`: a tenant's policy (src/domain/tenant-policy.ts,
// docs/tenants.md) from the command line, for the operator who holds Redis — the same store, schema
// and checks as PUT /v1/admin/tenants/:tenant/policy, and like the other `keys` commands it talks
// to Redis directly. `set` merges `field=value` pairs into the tenant's overrides (`field=` removes
// one), so a limit can be changed without restating the others.
import type { RedisClient } from '../redis/redis-connection.js';
import { providerNames, providersTheFleetLacks } from '../domain/provider-declarations.js';
import { TENANT_PATTERN } from '../domain/tenant-id.js';
import { tenantPolicyDefaults, type Config } from '../config.js';
import { effectiveTenantPolicy, tenantPolicyOverridesSchema, type TenantPolicyOverrides } from '../domain/tenant-policy.js';
import { modelsTheFleetRefuses } from '../domain/tenant-run-limits.js';
import { type KeySpace, TenantPolicyStore } from '../engine/index.js';
import { zodIssueLines } from '../domain/format-zod-issues.js';

export const POLICY_USAGE = `  buildfleet keys policy get <tenant> [--json]
  buildfleet keys policy set <tenant> field=value [field=value …] [--json]
      fields: maxTurns, maxConcurrentRuns, allowedModels (comma-separated model ids),
      allowedProviders (comma-separated provider names: anthropic, BUILDFLEET_PROVIDERS' names),
      defaultRunBudgetUsd, maxRunBudgetUsd, defaultRunTokenBudget, maxRunTokenBudget,
      dailySpendLimitUsd, monthlySpendLimitUsd; 0 = none; defaultEffort (low, medium, high, xhigh,
      max: runs naming no effort get it where their model takes it); field= removes the override
  buildfleet keys policy reset <tenant>          remove every override (the fleet's defaults apply)`;

/** A mistake in what the operator typed: exit code 2 with the usage. */
export class PolicyUsageError extends Error {}

const FIELDS = Object.keys(tenantPolicyOverridesSchema.shape) as Array<keyof TenantPolicyOverrides>;

/** The overrides after applying `field=value` pairs to `current`; values are typed by field. */
export function applyPolicyAssignments(current: TenantPolicyOverrides, assignments: readonly string[]): Record<string, unknown> {
  if (assignments.length === 0) throw new PolicyUsageError('keys policy set needs at least one field=value');
  const next: Record<string, unknown> = { ...current };
  for (const assignment of assignments) {
    const equals = assignment.indexOf('=');
    const field = equals === -1 ? assignment : assignment.slice(0, equals);
    if (equals === -1 || !(FIELDS as string[]).includes(field)) {
      throw new PolicyUsageError(`"${assignment}" is not field=value with a field of: ${FIELDS.join(', ')}`);
    }
    const value = assignment.slice(equals + 1).trim();
    if (value === '') {
      delete next[field];
      continue;
    }
    if (field === 'allowedModels' || field === 'allowedProviders') {
      next[field] = value.split(',').map((name) => name.trim());
      continue;
    }
    // A word, checked by the policy's schema.
    if (field === 'defaultEffort') {
      next[field] = value;
      continue;
    }
    // Number('') and Number(' ') are 0, and Number('0x10') is 16: only plain decimals pass.
    if (!/^\d+(\.\d+)?$/.test(value)) throw new PolicyUsageError(`${field}=${value}: expected a number (0 = none)`);
    next[field] = Number(value);
  }
  return next;
}

/** The problems of a policy the operator asked for, one line each (empty when it is valid). */
function policyProblems(candidate: Record<string, unknown>, config: Config): { overrides: TenantPolicyOverrides | null; problems: string[] } {
  const parsed = tenantPolicyOverridesSchema.safeParse(candidate);
  if (!parsed.success) return { overrides: null, problems: zodIssueLines({ issues: parsed.error.issues, whole: '(policy)' }) };
  const refused = modelsTheFleetRefuses({ models: parsed.data.allowedModels ?? [], config });
  const problems = refused.map((model) => `allowedModels: ${JSON.stringify(model)} is not in the fleet's capability table`);
  // As PUT /v1/admin/tenants/:tenant/policy refuses them (unknown_provider): this process's
  // BUILDFLEET_PROVIDERS, which must be the fleet's, like the capability table above.
  const lacking = providersTheFleetLacks({ providers: parsed.data.allowedProviders ?? [], declarations: config.BUILDFLEET_PROVIDERS });
  problems.push(
    ...lacking.map(
      (provider) =>
        `allowedProviders: ${JSON.stringify(provider)} is no provider the fleet has (providers: ${providerNames(config.BUILDFLEET_PROVIDERS).join(', ')})`,
    ),
  );
  return { overrides: problems.length === 0 ? parsed.data : null, problems };
}

function printPolicy({
  tenant,
  overrides,
  config,
  json,
  print,
}: {
  tenant: string;
  overrides: TenantPolicyOverrides;
  config: Config;
  json: boolean;
  print: (line: string) => void;
}): void {
  const policy = effectiveTenantPolicy({ defaults: tenantPolicyDefaults(config), overrides });
  if (json) {
    print(JSON.stringify({ tenant, overrides, policy }));
    return;
  }
  print(`tenant ${tenant}`);
  for (const [field, value] of Object.entries(policy)) {
    const shown = value === null ? 'none' : Array.isArray(value) ? value.join(',') : String(value);
    const source = Object.hasOwn(overrides, field) ? 'set for this tenant' : 'fleet default';
    print(`  ${field.padEnd(22)} ${shown.padEnd(24)} (${source})`);
  }
}

/** Runs `keys policy <action> <tenant> …`; returns the exit code. */
export async function runPolicyCommand({
  positionals,
  json,
  config,
  redis,
  keys,
  print,
}: {
  positionals: readonly string[];
  json: boolean;
  config: Config;
  redis: RedisClient;
  keys: KeySpace;
  print: (line: string) => void;
}): Promise<number> {
  const [action, tenant, ...assignments] = positionals;
  if (action !== 'get' && action !== 'set' && action !== 'reset') {
    throw new PolicyUsageError(action ? `unknown keys policy action "${action}"` : 'keys policy needs get, set or reset');
  }
  if (!tenant) throw new PolicyUsageError(`keys policy ${action} needs a tenant`);
  if (!TENANT_PATTERN.test(tenant)) throw new PolicyUsageError(`invalid tenant "${tenant}": 1-64 letters, digits, _ and -`);
  const store = new TenantPolicyStore(redis, keys);
  switch (action) {
    case 'get': {
      if (assignments.length > 0) throw new PolicyUsageError('keys policy get takes only a tenant');
      printPolicy({ tenant, overrides: await store.get(tenant), config, json, print });
      return 0;
    }
    case 'set': {
      const { overrides, problems } = policyProblems(applyPolicyAssignments(await store.get(tenant), assignments), config);
      if (!overrides) {
        console.error(`buildfleet: the policy was not changed:\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
        return 2;
      }
      printPolicy({ tenant, overrides: await store.put(tenant, overrides), config, json, print });
      return 0;
    }
    case 'reset': {
      if (assignments.length > 0) throw new PolicyUsageError('keys policy reset takes only a tenant');
      printPolicy({ tenant, overrides: await store.put(tenant, {}), config, json, print });
      return 0;
    }
  }
}
