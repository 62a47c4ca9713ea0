// Budgets before spending and tenant spend limits, through the API and the real queues: builds on
// the simulator over HTTP through the SDK, real Redis, the real workers. A run whose budget is below
// what its build costs stops with `budget_exceeded` before the call that could cross it (the
// simulator's request log shows no call after the last one that fit, and the run's cost stays
// within its budget); a tenant over its spend limit is refused new runs and sees what remains;
// budgets above the tenant's maximum are refused; only admins set a tenant's policy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/auth/api-key-store.js';
import type { ApiKeyScope } from '../../src/auth/api-key-scopes.js';
import { totalTokens, type UsageByClass } from '../../src/domain/usage.js';
import { usdToMicroUsd } from '../../src/domain/usage-cost.js';
import type { RunRecord } from '../../src/engine/index.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

let harness: InProcessFleet;
let keys: ApiKeyStore;

beforeAll(async () => {
  harness = await startInProcessFleet({
    label: 'budgets',
    // A call's worst case is its prompt plus all of max_tokens as output. The instant profile's
    // answers are a few hundred tokens, so with max_tokens 1024 (instead of the model's 16,384) a
    // budget of half a build still admits several calls before it stops one. Strict tools off: the
    // budgets here were sized on builds without strict tools; with them (calls never drifted into
    // text, inputs conformed) half of the first build no longer covers the next run's first call.
    env: { BUILDFLEET_STRICT_TOOLS: 'false', BUILDFLEET_MAX_TOKENS: '1024', BUILDFLEET_RATE_LIMIT_PER_MINUTE: '0', BUILDFLEET_MAX_CONCURRENT_RUNS: '0' },
  });
  keys = new ApiKeyStore({ redis: harness.fleet.redis, keys: harness.fleet.store.keys });
});
afterAll(async () => harness?.close());

async function keyOf(tenant: string, scopes: ApiKeyScope[] = ['runs:read', 'runs:write']): Promise<string> {
  return (await keys.create({ tenant, scopes })).token;
}

async function api(method: 'GET' | 'POST' | 'PUT', path: string, key: string, body?: unknown): Promise<{ status: number; headers: Headers; json: any }> {
  const response = await fetch(`${harness.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, headers: response.headers, json: await response.json() };
}

interface BudgetView {
  usd: { limit: number; spent: number; remaining: number; setBy: string } | null;
  tokens: { limit: number; spent: number; remaining: number } | null;
}

/** Creates a run through the API and waits for it to end; returns the record and the API's view. */
async function build(key: string, options: Record<string, unknown> = {}): Promise<{ run: RunRecord; view: { costUsd: number; usage: UsageByClass; budget: BudgetView; error: { code: string; message: string } | null } }> {
  const created = await api('POST', '/v1/runs', key, { prompt: 'Build a small bakery website.', options });
  expect(created.status, JSON.stringify(created.json)).toBe(202);
  const run = await harness.waitForRun(created.json.id as string);
  return { run, view: (await api('GET', `/v1/runs/${run.id}`, key)).json };
}

const requestsOf = (runId: string) => harness.simulator.requests.filter((request) => request.headers['x-buildfleet-run-id'] === runId);

async function poll<T>(read: () => Promise<T>, until: (value: T) => boolean, what: string): Promise<T> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    const value = await read();
    if (until(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${what} did not happen`);
}

/** The tenant's spend of today once every answer of `runs` has been added to it (the step after the commit). */
async function settledDaySpend(tenant: string, runs: RunRecord[]): Promise<number> {
  const expected = runs.reduce((sum, run) => sum + run.costMicroUsd, 0);
  return (await poll(() => harness.fleet.store.tenantSpend(tenant), (spend) => spend.day.costMicroUsd === expected, 'the tenant’s spend')).day.costMicroUsd;
}

/**
 * What a run that stopped on a budget must show: it made calls, each of them answered and committed
 * (no call the simulator saw went unrecorded), nothing was called after the last answer, and its
 * run-end names the budget.
 */
async function expectStoppedBeforeTheCall(run: RunRecord): Promise<void> {
  expect(run.status).toBe('failed');
  expect(run.error?.code).toBe('budget_exceeded');
  const events = await harness.fleet.store.readEvents(run.id);
  const answers = events.filter((event) => event.event === 'model-call-end');
  expect(answers.length).toBeGreaterThan(0);
  const requests = requestsOf(run.id);
  expect(requests).toHaveLength(answers.length);
  expect(requests.every((request) => request.status === 200 && !request.abandoned)).toBe(true);
  const lastAnswer = events.lastIndexOf(answers.at(-1)!);
  expect(events.slice(lastAnswer + 1).map((event) => event.event)).not.toContain('turn-start');
  expect(events.at(-1)).toMatchObject({ event: 'run-end', status: 'failed', error_code: 'budget_exceeded' });
}

describe('a run’s budgets, checked before each model call', () => {
  let reference: Awaited<ReturnType<typeof build>>;
  let userKey: string;

  beforeAll(async () => {
    userKey = await keyOf('budget-runs');
    // What the build costs without a budget of its own (the fleet sets no USD default).
    reference = await build(userKey);
    expect(reference.run.status).toBe('succeeded');
    expect(reference.view.budget).toEqual({
      usd: null,
      tokens: { limit: 400_000, spent: totalTokens(reference.run.usage), remaining: 400_000 - totalTokens(reference.run.usage) },
    });
  });

  it('stops a run whose USD budget is below what its build needs before the call that could cross it', async () => {
    const budgetMicroUsd = Math.floor(reference.run.costMicroUsd / 2);
    const { run, view } = await build(userKey, { budgetUsd: budgetMicroUsd / 1_000_000 });
    await expectStoppedBeforeTheCall(run);

    // Its cost never exceeds its budget, and the message names spent, the call's worst case and the budget.
    expect(run.costMicroUsd).toBeLessThanOrEqual(budgetMicroUsd);
    const [, spent, estimate, budget] = /spent \$(\d+\.\d+); its next model call could cost up to \$(\d+\.\d+) .* budget of \$(\d+\.\d+)/.exec(run.error!.message)!.map(Number);
    expect(usdToMicroUsd(spent!)).toBe(run.costMicroUsd);
    expect(usdToMicroUsd(budget!)).toBe(budgetMicroUsd);
    expect(usdToMicroUsd(spent!) + usdToMicroUsd(estimate!)).toBeGreaterThan(budgetMicroUsd);

    // The API shows the budget, what was spent against it and what remains.
    expect(view.error?.code).toBe('budget_exceeded');
    expect(view.budget.usd).toEqual({
      limit: budgetMicroUsd / 1_000_000,
      spent: run.costMicroUsd / 1_000_000,
      remaining: (budgetMicroUsd - run.costMicroUsd) / 1_000_000,
      setBy: 'run',
    });
  });

  it('stops a run whose token budget is below what its build needs, likewise', async () => {
    const tokenBudget = Math.floor(totalTokens(reference.run.usage) / 2);
    const { run, view } = await build(userKey, { tokenBudget });
    await expectStoppedBeforeTheCall(run);
    expect(totalTokens(run.usage)).toBeLessThanOrEqual(tokenBudget);
    expect(run.error!.message).toMatch(new RegExp(`used ${totalTokens(run.usage).toLocaleString('en-US')} tokens; .* token budget of ${tokenBudget.toLocaleString('en-US')}`));
    expect(view.budget.tokens).toEqual({ limit: tokenBudget, spent: totalTokens(run.usage), remaining: tokenBudget - totalTokens(run.usage) });
  });
});

describe('a tenant’s spend limit', () => {
  it('refuses new runs once the tenant’s day reached its limit, and shows remaining 0', async () => {
    const tenant = 'budget-day';
    const userKey = await keyOf(tenant);
    const first = await build(userKey);
    const spent = await settledDaySpend(tenant, [first.run]);
    const limitUsd = Math.floor(spent / 2) / 1_000_000;
    expect((await api('PUT', `/v1/admin/tenants/${tenant}/policy`, harness.apiKey, { dailySpendLimitUsd: limitUsd })).status).toBe(200);

    const before = await harness.fleet.store.tenantRunIndex(tenant, { maxScore: '+inf', offset: 0, count: 100 });
    const refused = await api('POST', '/v1/runs', userKey, { prompt: 'Another site' });
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('tenant_spend_limit_reached');
    const today = (await harness.fleet.store.tenantSpend(tenant)).day.period;
    expect(refused.json.error.message).toContain(`in UTC day ${today}, reaching its daily spend limit of $${limitUsd.toFixed(2)}`);
    expect(refused.json.error.message).toMatch(/resets at \d{4}-\d{2}-\d{2}T00:00:00\.000Z/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    // Nothing was created.
    expect(await harness.fleet.store.tenantRunIndex(tenant, { maxScore: '+inf', offset: 0, count: 100 })).toEqual(before);

    const shown = await api('GET', '/v1/spend', userKey);
    expect(shown.status).toBe(200);
    expect(shown.json).toMatchObject({
      tenant,
      day: { spentUsd: spent / 1_000_000, limitUsd, remainingUsd: 0, limitReached: true, usage: first.run.usage },
      month: { spentUsd: spent / 1_000_000, limitUsd: null, remainingUsd: null, limitReached: false },
      policy: { dailySpendLimitUsd: limitUsd, monthlySpendLimitUsd: null },
    });
    expect(Date.parse(shown.json.day.resetsAt) - Date.now()).toBeLessThanOrEqual(86_400_000);

    // An admin reads any tenant's spend; a tenant reads no other's.
    expect((await api('GET', `/v1/spend?tenant=${tenant}`, harness.apiKey)).json).toEqual(shown.json);
    const other = await api('GET', '/v1/spend?tenant=default', userKey);
    expect(other.status).toBe(403);
    expect(other.json.error.code).toBe('forbidden');
  });

  it('lowers a new run’s USD budget to what the tenant may still spend, so the run stops at the limit', async () => {
    const tenant = 'budget-left';
    const userKey = await keyOf(tenant);
    const first = await build(userKey);
    const spent = await settledDaySpend(tenant, [first.run]);
    // Room for less than a build: the next run may spend what the first one did, which its calls'
    // worst cases (every input token at the cache-write price, all of max_tokens as output) exceed
    // before its last call — while the first call's worst case still fits, so it makes calls first.
    const leftMicroUsd = first.run.costMicroUsd;
    const limitUsd = (spent + leftMicroUsd) / 1_000_000;
    expect((await api('PUT', `/v1/admin/tenants/${tenant}/policy`, harness.apiKey, { dailySpendLimitUsd: limitUsd })).status).toBe(200);
    expect((await api('GET', '/v1/spend', userKey)).json.day.remainingUsd).toBe(leftMicroUsd / 1_000_000);

    // It asks for more than the tenant has left.
    const { run, view } = await build(userKey, { budgetUsd: 10 });
    expect(view.budget.usd).toMatchObject({ limit: leftMicroUsd / 1_000_000, setBy: 'tenant_daily_spend_limit' });
    await expectStoppedBeforeTheCall(run);
    expect(run.error!.message).toContain('lowered at its start to what its tenant could still spend that UTC day');
    // The tenant stays within its limit.
    expect(await settledDaySpend(tenant, [first.run, run])).toBeLessThanOrEqual(usdToMicroUsd(limitUsd));
  });
});

describe('a tenant’s policy', () => {
  it('refuses run budgets above the tenant’s maximum, unless the key is an admin’s', async () => {
    const tenant = 'budget-max';
    expect((await api('PUT', `/v1/admin/tenants/${tenant}/policy`, harness.apiKey, { maxRunBudgetUsd: 0.5, maxRunTokenBudget: 100_000 })).status).toBe(200);
    const userKey = await keyOf(tenant);

    const usd = await api('POST', '/v1/runs', userKey, { prompt: 'A site', options: { budgetUsd: 0.75 } });
    expect(usd.status).toBe(400);
    expect(usd.json.error).toEqual({
      code: 'budget_above_tenant_maximum',
      message: "options.budgetUsd asks for $0.75; this tenant's runs may ask for at most $0.5. Ask for less, or leave it out for the tenant's default.",
    });
    const tokens = await api('POST', '/v1/runs', userKey, { prompt: 'A site', options: { tokenBudget: 100_001 } });
    expect(tokens.status).toBe(400);
    expect(tokens.json.error.code).toBe('budget_above_tenant_maximum');
    expect(tokens.json.error.message).toContain('options.tokenBudget asks for 100001 tokens; this tenant\'s runs may ask for at most 100000 tokens');
    expect(await harness.fleet.store.tenantRunIndex(tenant, { maxScore: '+inf', offset: 0, count: 10 })).toEqual([]);

    // Without options a run gets the maximums (no default of the tenant's own, and the fleet's
    // token default is above the maximum); at the maximum it is accepted.
    const defaulted = await build(userKey);
    expect(defaulted.view.budget).toMatchObject({ usd: { limit: 0.5, setBy: 'run' }, tokens: { limit: 100_000 } });
    const atMaximum = await api('POST', '/v1/runs', userKey, { prompt: 'A site', options: { budgetUsd: 0.5, tokenBudget: 100_000 } });
    expect(atMaximum.status).toBe(202);

    // An admin key of the tenant may exceed them.
    const adminKey = await keyOf(tenant, ['admin']);
    const exceeded = await build(adminKey, { budgetUsd: 0.75, tokenBudget: 100_001 });
    expect(exceeded.view.budget).toMatchObject({ usd: { limit: 0.75 }, tokens: { limit: 100_001 } });
    await harness.waitForRun(atMaximum.json.id as string);
  });

  it('is set and read by admin keys only, validated, and `{}` returns the tenant to the fleet’s defaults', async () => {
    const tenant = 'budget-policy';
    const userKey = await keyOf(tenant);
    const path = `/v1/admin/tenants/${tenant}/policy`;

    // A tenant cannot raise its own limits, nor read the admin view.
    const denied = await api('PUT', path, userKey, { maxRunBudgetUsd: 1000 });
    expect(denied.status).toBe(403);
    expect(denied.json.error.code).toBe('forbidden');
    expect((await api('GET', path, userKey)).status).toBe(403);

    const set = await api('PUT', path, harness.apiKey, { defaultRunBudgetUsd: 1, maxRunBudgetUsd: 2, monthlySpendLimitUsd: 100 });
    expect(set.status).toBe(200);
    expect(set.json).toEqual({
      tenant,
      overrides: { defaultRunBudgetUsd: 1, maxRunBudgetUsd: 2, monthlySpendLimitUsd: 100 },
      policy: {
        defaultRunBudgetUsd: 1,
        maxRunBudgetUsd: 2,
        defaultRunTokenBudget: 400_000,
        // The fleet's default ceiling (BUILDFLEET_TOKEN_BUDGET_MAX).
        maxRunTokenBudget: 2_000_000,
        dailySpendLimitUsd: null,
        monthlySpendLimitUsd: 100,
        maxTurns: 40,
        maxConcurrentRuns: null,
        allowedModels: null,
        allowedProviders: null,
        defaultEffort: null,
      },
    });
    expect((await api('GET', path, harness.apiKey)).json).toEqual(set.json);
    expect((await api('GET', '/v1/spend', userKey)).json.policy).toEqual(set.json.policy);

    // Refused: a default above its maximum, an unknown field, a negative amount, a bad tenant name.
    for (const body of [{ defaultRunBudgetUsd: 3, maxRunBudgetUsd: 2 }, { dailyLimit: 5 }, { dailySpendLimitUsd: -1 }]) {
      const refused = await api('PUT', path, harness.apiKey, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.json.error.code).toBe('invalid_body');
    }
    expect((await api('PUT', '/v1/admin/tenants/-bad/policy', harness.apiKey, {})).json.error.code).toBe('invalid_params');
    expect((await api('GET', path, harness.apiKey)).json).toEqual(set.json);

    const cleared = await api('PUT', path, harness.apiKey, {});
    expect(cleared.json).toMatchObject({ overrides: {}, policy: { defaultRunBudgetUsd: null, maxRunBudgetUsd: null, monthlySpendLimitUsd: null } });
    expect(await harness.fleet.redis.exists(harness.fleet.store.keys.tenantPolicy(tenant))).toBe(0);
  });

  it('that does not decode refuses new runs of its tenant instead of passing for no limits', async () => {
    const tenant = 'budget-damaged';
    const userKey = await keyOf(tenant);
    // Deliberately what production never writes: a policy with a field of the wrong type.
    await harness.fleet.redis.set(harness.fleet.store.keys.tenantPolicy(tenant), JSON.stringify({ dailySpendLimitUsd: 'lots' }));
    const refused = await api('POST', '/v1/runs', userKey, { prompt: 'A site' });
    expect(refused.status).toBe(500);
    expect(refused.json.error.code).toBe('internal_error');
    expect(await harness.fleet.store.tenantRunIndex(tenant, { maxScore: '+inf', offset: 0, count: 10 })).toEqual([]);
  });
});
