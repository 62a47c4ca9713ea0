// A tenant's policy: the limits that bind one tenant's runs and spending, in one home. The fleet's
// defaults come from the environment (src/config.ts); an operator overrides any of them per tenant
// (stored in Redis by src/engine/tenant-policy-store.ts, set with PUT
// /v1/admin/tenants/:tenant/policy, or `buildfleet keys policy`): the run budgets and spend limits
// of issue #15, and the run limits of issue #16 (max turns, allowed models, runs not yet ended).
// docs/tenants.md documents every field and rule; docs/costs.md ("Budgets") the money side.
import { z } from 'zod';
import { usdToMicroUsd } from './usage-cost.js';
import { providerNameSchema } from './provider-declarations.js';
import { EFFORT_LEVELS, type EffortLevel } from './model-catalog.js';

/** The largest amount a policy or a run option may name, in USD: far above any real build, low
 * enough that micro-dollars stay exact integers (2^53 µUSD is $9 billion). */
export const MAX_POLICY_USD = 1_000_000;
/** The largest token budget (the run option's ceiling since run options existed). */
export const MAX_TOKEN_BUDGET = 10_000_000;
/** The most turns a run may take (the `maxTurns` run option's ceiling since it existed). */
export const MAX_RUN_TURNS = 200;
/** The largest cap on a tenant's runs not yet ended a policy may name. */
export const MAX_CONCURRENT_RUNS = 100_000;
/** How many models one allow-list may name. */
export const MAX_ALLOWED_MODELS = 50;

const usdAmount = (meaning: string) =>
  z
    .number()
    .min(0)
    .max(MAX_POLICY_USD)
    // Amounts are kept in whole micro-dollars: one that rounds to 0 would read as a limit of
    // nothing (every run refused) rather than as none.
    .refine((usd) => usd === 0 || usd >= 0.000001, 'must be 0 (none) or at least 0.000001 (one micro-dollar)')
    .describe(`${meaning}, in USD; 0 = none`);
const tokenAmount = (meaning: string) =>
  z.int().min(0).max(MAX_TOKEN_BUDGET).describe(`${meaning}, in tokens (every class: uncached input, cache writes and reads, output); 0 = none`);

/** Every field of a policy. In the fleet's defaults every one is set; in a tenant's override a
 * field left out takes the fleet's default. */
const policyFields = {
  defaultRunBudgetUsd: usdAmount('The USD budget of a run that names none (`options.budgetUsd`)'),
  maxRunBudgetUsd: usdAmount('The largest USD budget a run may ask for; a default above it is lowered to it'),
  defaultRunTokenBudget: tokenAmount('The token budget of a run that names none (`options.tokenBudget`)'),
  maxRunTokenBudget: tokenAmount('The largest token budget a run may ask for; a default above it is lowered to it'),
  dailySpendLimitUsd: usdAmount('What the tenant’s runs may spend per UTC day; new runs are refused once it is reached'),
  monthlySpendLimitUsd: usdAmount('What the tenant’s runs may spend per UTC month; new runs are refused once it is reached'),
  maxTurns: z.int().min(1).max(MAX_RUN_TURNS).describe('The turns of a run that names none (`maxTurns`), and the most a run may ask for'),
  maxConcurrentRuns: z
    .int()
    .min(0)
    .max(MAX_CONCURRENT_RUNS)
    .describe('Runs of the tenant not yet ended (queued, running, waiting for input) beyond which new runs are refused; 0 = none'),
} as const;

/** A model id as a run names it (the `model` run option's rules). */
const modelId = z.string().min(1).max(200);

/** The models a tenant's runs may use: a list, each at most once. Not a number, so not among the
 * fleet's defaults (which come from the environment): a tenant without one may use every model the
 * fleet's capability table accepts. */
const allowedModelsSchema = z
  .array(modelId)
  .min(1)
  .max(MAX_ALLOWED_MODELS)
  .refine((models) => new Set(models).size === models.length, 'must not name a model twice')
  .describe(
    'The models the tenant’s runs may use; a run naming another is refused ' +
      '(`model_not_allowed`), and a run naming none gets BUILDFLEET_MODEL when it is ' +
      'listed, else the first model listed. Leave it out for every model the fleet accepts',
  );

/** The providers a tenant's runs may use (docs/providers.md), like its models. */
const allowedProvidersSchema = z
  .array(providerNameSchema)
  .min(1)
  .max(MAX_ALLOWED_MODELS)
  .refine((providers) => new Set(providers).size === providers.length, 'must not name a provider twice')
  .describe(
    'The model providers the tenant’s runs may use; a run naming another is refused ' +
      '(`provider_not_allowed`), and a run naming none gets BUILDFLEET_PROVIDER when it is ' +
      'listed, else the first provider listed. Leave it out for every provider the fleet has',
  );

/** The effort of the tenant's runs that name none (`thinking.effort`): applied where the run's
 * model takes that level, else the model's own default. */
const defaultEffortSchema = z
  .enum(EFFORT_LEVELS as [EffortLevel, ...EffortLevel[]])
  .describe(
    'The effort (`output_config.effort`) of the tenant’s runs that name none: ' +
      'low, medium, high, xhigh or max; applied where the run’s model takes that ' +
      'level, else the model’s default applies. Leave it out for the model’s default',
  );

export type TenantPolicyField = keyof typeof policyFields;

/** A default above its maximum (both set) is a mistake an operator should hear about. */
function defaultsWithinMaximums(policy: Partial<Record<TenantPolicyField, number>> & { allowedModels?: string[] }, context: z.RefinementCtx): void {
  const pairs = [
    ['defaultRunBudgetUsd', 'maxRunBudgetUsd'],
    ['defaultRunTokenBudget', 'maxRunTokenBudget'],
  ] as const;
  for (const [defaultField, maxField] of pairs) {
    const value = policy[defaultField];
    const maximum = policy[maxField];
    if (value !== undefined && maximum !== undefined && value > 0 && maximum > 0 && value > maximum) {
      context.addIssue({ code: 'custom', path: [defaultField], message: `${defaultField} (${value}) is above ${maxField} (${maximum})` });
    }
  }
}

/** One tenant's overrides, as PUT and as stored: any subset of the fields. Unknown fields are
 * refused, so a misspelt limit is never silently ignored. */
export const tenantPolicyOverridesSchema = z
  .strictObject({
    defaultRunBudgetUsd: policyFields.defaultRunBudgetUsd.optional(),
    maxRunBudgetUsd: policyFields.maxRunBudgetUsd.optional(),
    defaultRunTokenBudget: policyFields.defaultRunTokenBudget.optional(),
    maxRunTokenBudget: policyFields.maxRunTokenBudget.optional(),
    dailySpendLimitUsd: policyFields.dailySpendLimitUsd.optional(),
    monthlySpendLimitUsd: policyFields.monthlySpendLimitUsd.optional(),
    maxTurns: policyFields.maxTurns.optional(),
    maxConcurrentRuns: policyFields.maxConcurrentRuns.optional(),
    allowedModels: allowedModelsSchema.optional(),
    allowedProviders: allowedProvidersSchema.optional(),
    defaultEffort: defaultEffortSchema.optional(),
  })
  .superRefine(defaultsWithinMaximums)
  .describe('A tenant’s overrides of the fleet’s policy: a field left out takes the fleet’s default (BUILDFLEET_* variables); 0 = none');
export type TenantPolicyOverrides = z.infer<typeof tenantPolicyOverridesSchema>;

/** The fleet's defaults: every numeric field set (from the environment). */
export type TenantPolicyDefaults = Readonly<Record<TenantPolicyField, number>>;

/** A policy in force, every amount null when there is none. */
export const tenantPolicySchema = z
  .object({
    defaultRunBudgetUsd: z.number().nullable().describe('USD budget of a run that names none (never above maxRunBudgetUsd); null = none'),
    maxRunBudgetUsd: z.number().nullable().describe('Largest USD budget a run may ask for; null = none'),
    defaultRunTokenBudget: z.int().nullable().describe('Token budget of a run that names none (never above maxRunTokenBudget); null = none'),
    maxRunTokenBudget: z.int().nullable().describe('Largest token budget a run may ask for; null = none'),
    dailySpendLimitUsd: z.number().nullable().describe('Spend limit per UTC day; null = none'),
    monthlySpendLimitUsd: z.number().nullable().describe('Spend limit per UTC month; null = none'),
    maxTurns: z.int().describe('Turns of a run that names none, and the most a run may ask for (keys with the `admin` scope may ask for more)'),
    maxConcurrentRuns: z.int().nullable().describe('Runs not yet ended beyond which new runs are refused; null = none'),
    allowedModels: z.array(z.string()).nullable().describe('The models the tenant’s runs may use; null = every model the fleet accepts'),
    allowedProviders: z.array(z.string()).nullable().describe('The model providers the tenant’s runs may use; null = every provider the fleet has'),
    defaultEffort: z
      .enum(EFFORT_LEVELS as [EffortLevel, ...EffortLevel[]])
      .nullable()
      .describe('Effort of the tenant’s runs that name none, where the model takes it; null = the model’s default'),
  })
  .describe('The policy in force for a tenant: its overrides over the fleet’s defaults');
export type TenantPolicy = z.infer<typeof tenantPolicySchema>;

const noneIfZero = (value: number): number | null => (value > 0 ? value : null);

/** The smaller of a default and its maximum, either of which may be none: a run that names no
 * budget never gets more than it could have asked for. */
function withinMaximum(value: number | null, maximum: number | null): number | null {
  if (maximum === null) return value;
  return value === null ? maximum : Math.min(value, maximum);
}

/** The policy in force: each override over the fleet's default, 0 = none, defaults lowered to their maximums. */
export function effectiveTenantPolicy({ defaults, overrides }: { defaults: TenantPolicyDefaults; overrides: TenantPolicyOverrides }): TenantPolicy {
  const field = (name: TenantPolicyField) => noneIfZero(overrides[name] ?? defaults[name]);
  const maxRunBudgetUsd = field('maxRunBudgetUsd');
  const maxRunTokenBudget = field('maxRunTokenBudget');
  return {
    defaultRunBudgetUsd: withinMaximum(field('defaultRunBudgetUsd'), maxRunBudgetUsd),
    maxRunBudgetUsd,
    defaultRunTokenBudget: withinMaximum(field('defaultRunTokenBudget'), maxRunTokenBudget),
    maxRunTokenBudget,
    dailySpendLimitUsd: field('dailySpendLimitUsd'),
    monthlySpendLimitUsd: field('monthlySpendLimitUsd'),
    // At least 1 in every source (the schema's minimum), so never "none".
    maxTurns: overrides.maxTurns ?? defaults.maxTurns,
    maxConcurrentRuns: field('maxConcurrentRuns'),
    allowedModels: overrides.allowedModels ? [...overrides.allowedModels] : null,
    allowedProviders: overrides.allowedProviders ? [...overrides.allowedProviders] : null,
    defaultEffort: overrides.defaultEffort ?? null,
  };
}

/** A USD amount of a policy (or null) in whole micro-dollars. */
export function policyMicroUsd(usd: number | null): number | null {
  return usd === null ? null : usdToMicroUsd(usd);
}
