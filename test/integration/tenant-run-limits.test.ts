// A tenant's run limits through the API on real Redis (issue #16): max turns, allowed models, runs
// not yet ended, and the experiment-only options. Only an admin sets them; a tenant's own keys can
// neither change its policy nor create a run above it, and a refused run leaves nothing behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiTestHarness, type ApiTestHarness } from '../../src/api/testing/api-test-harness.js';

let harness: ApiTestHarness;
/** Keys of tenant `acme`: a plain one and an admin one. */
let user: { authorization: string };
let acmeAdmin: { authorization: string };

beforeAll(async () => {
  harness = await createApiTestHarness({
    label: 'runlimits',
    // The fleet's defaults: 30 turns, one run not yet ended per tenant; one declared provider
    // besides the implicit `anthropic` (never called here: no run of it reaches a worker).
    environment: {
      BUILDFLEET_MAX_TURNS: '30',
      BUILDFLEET_MAX_CONCURRENT_RUNS: '1',
      BUILDFLEET_PROVIDERS: JSON.stringify({ vllm: { kind: 'openai_compatible', baseUrl: 'http://127.0.0.1:9/v1' } }),
    },
  });
  user = { authorization: `Bearer ${await harness.createKey({ tenant: 'acme', scopes: ['runs:read', 'runs:write'] })}` };
  acmeAdmin = { authorization: `Bearer ${await harness.createKey({ tenant: 'acme', scopes: ['admin'] })}` };
});
afterAll(async () => harness?.close());

async function call(method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string>, payload?: object) {
  const response = await harness.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  return { status: response.statusCode, json: response.json() as any };
}

const policyPath = (tenant: string) => `/v1/admin/tenants/${tenant}/policy`;
const activeRuns = (tenant: string) => harness.fleet.store.activeRunCount(tenant);

describe('setting a tenant’s run limits', () => {
  it('is refused to the tenant’s own keys: its policy stays as the operator set it', async () => {
    const before = await call('GET', policyPath('acme'), harness.auth);
    for (const body of [{ maxTurns: 200 }, { maxConcurrentRuns: 0 }, { allowedModels: ['claude-opus-4-6'] }, {}]) {
      const denied = await call('PUT', policyPath('acme'), user, body);
      expect(denied.status, JSON.stringify(body)).toBe(403);
      expect(denied.json.error.code).toBe('forbidden');
    }
    expect((await call('GET', policyPath('acme'), user)).status).toBe(403);
    expect((await call('GET', policyPath('acme'), harness.auth)).json).toEqual(before.json);
  });

  it('is an admin’s: the fleet’s defaults fill in, and the tenant sees its policy in force', async () => {
    const fleetDefaults = await call('GET', policyPath('nobody'), harness.auth);
    expect(fleetDefaults.json.policy).toMatchObject({ maxTurns: 30, maxConcurrentRuns: 1, allowedModels: null });
    const set = await call('PUT', policyPath('acme'), harness.auth, { maxTurns: 5, maxConcurrentRuns: 2, allowedModels: ['claude-haiku-4-5', 'claude-sonnet-4-5'] });
    expect(set.status).toBe(200);
    expect(set.json.policy).toMatchObject({ maxTurns: 5, maxConcurrentRuns: 2, allowedModels: ['claude-haiku-4-5', 'claude-sonnet-4-5'] });
    expect((await call('GET', '/v1/spend', user)).json.policy).toEqual(set.json.policy);
  });

  it('refuses an allow-list naming a model the fleet does not know, a repeated model, or an empty list', async () => {
    for (const allowedModels of [['claude-haiku-4-5', 'gpt-4o'], ['claude-haiku-4-5', 'claude-haiku-4-5'], []]) {
      const refused = await call('PUT', policyPath('acme'), harness.auth, { maxTurns: 5, allowedModels });
      expect(refused.status, JSON.stringify(allowedModels)).toBe(400);
      expect(refused.json.error.code).toBe('invalid_body');
    }
    expect((await call('GET', policyPath('acme'), harness.auth)).json.overrides.allowedModels).toEqual(['claude-haiku-4-5', 'claude-sonnet-4-5']);
  });

  it('takes allowed providers the fleet has, and refuses one it has not with unknown_provider, listing those it has', async () => {
    const set = await call('PUT', policyPath('providers'), harness.auth, { allowedProviders: ['vllm', 'anthropic'] });
    expect(set.status).toBe(200);
    expect(set.json).toMatchObject({ overrides: { allowedProviders: ['vllm', 'anthropic'] }, policy: { allowedProviders: ['vllm', 'anthropic'] } });
    const refused = await call('PUT', policyPath('providers'), harness.auth, { allowedProviders: ['vllm', 'gpu-9'] });
    expect(refused.status).toBe(400);
    expect(refused.json.error.code).toBe('unknown_provider');
    expect(refused.json.error.message).toContain('"gpu-9"');
    expect(refused.json.error.message).toContain('Providers: anthropic, vllm.');
    // Not a provider name at all: the body's schema refuses it.
    for (const allowedProviders of [['Bad Name'], ['vllm', 'vllm'], []]) {
      const invalid = await call('PUT', policyPath('providers'), harness.auth, { allowedProviders });
      expect(invalid.status, JSON.stringify(allowedProviders)).toBe(400);
      expect(invalid.json.error.code).toBe('invalid_body');
    }
    expect((await call('GET', policyPath('providers'), harness.auth)).json.overrides).toEqual({ allowedProviders: ['vllm', 'anthropic'] });
  });
});

describe('creating a run above the tenant’s limits', () => {
  it('refuses maxTurns above the policy (not clamped), experiment options and other models, creating nothing', async () => {
    const refusals: Array<{ body: object; status: number; code: string; mentions: string }> = [
      { body: { prompt: 'x', maxTurns: 6 }, status: 400, code: 'max_turns_above_tenant_maximum', mentions: 'at most 5' },
      { body: { prompt: 'x', maxTurns: 200 }, status: 400, code: 'max_turns_above_tenant_maximum', mentions: 'at most 5' },
      { body: { prompt: 'x', model: 'claude-opus-4-6' }, status: 403, code: 'model_not_allowed', mentions: 'claude-haiku-4-5, claude-sonnet-4-5' },
      { body: { prompt: 'x', options: { toolLayout: 'flat' } }, status: 403, code: 'run_option_requires_admin', mentions: 'options.toolLayout' },
      { body: { prompt: 'x', options: { textRecovery: false } }, status: 403, code: 'run_option_requires_admin', mentions: 'options.textRecovery' },
    ];
    for (const refusal of refusals) {
      const response = await call('POST', '/v1/runs', user, refusal.body);
      expect(response.status, JSON.stringify(refusal.body)).toBe(refusal.status);
      expect(response.json.error.code).toBe(refusal.code);
      expect(response.json.error.message).toContain(refusal.mentions);
    }
    expect(await activeRuns('acme')).toBe(0);
    expect((await call('GET', '/v1/runs', user)).json.runs).toEqual([]);
  });

  it('binds the allowed models for admin keys too, but lets them exceed maxTurns and set experiment options', async () => {
    const model = await call('POST', '/v1/runs', acmeAdmin, { prompt: 'x', model: 'claude-opus-4-6' });
    expect(model.status).toBe(403);
    expect(model.json.error.code).toBe('model_not_allowed');
    const operators = await call('POST', '/v1/runs', acmeAdmin, { prompt: 'x', maxTurns: 50, options: { toolLayout: 'flat', textRecovery: false } });
    expect(operators.status).toBe(202);
    const stored = await harness.fleet.store.getRun(operators.json.id);
    expect(stored).toMatchObject({ maxTurns: 50, options: { toolLayout: 'flat', textRecovery: false } });
    expect((await call('POST', `/v1/runs/${operators.json.id}/cancel`, acmeAdmin)).status).toBe(202);
  });

  it('gives a run within the limits the policy’s turns and, naming no model, the fleet’s when allowed or else the first allowed', async () => {
    const within = await call('POST', '/v1/runs', user, { prompt: 'x', maxTurns: 3, model: 'claude-sonnet-4-5' });
    expect(within.status).toBe(202);
    expect(await harness.fleet.store.getRun(within.json.id)).toMatchObject({ maxTurns: 3, model: 'claude-sonnet-4-5' });
    // BUILDFLEET_MODEL (claude-sonnet-4-6) is not on acme's list: the first listed model.
    const defaults = await call('POST', '/v1/runs', user, { prompt: 'x' });
    expect(defaults.status).toBe(202);
    expect(await harness.fleet.store.getRun(defaults.json.id)).toMatchObject({ maxTurns: 5, model: 'claude-haiku-4-5' });
  });

  it('caps the runs not yet ended at the policy’s maxConcurrentRuns, over the fleet’s, for every key of the tenant', async () => {
    // acme has two runs not yet ended (above): its policy allows 2 where the fleet allows 1.
    expect(await activeRuns('acme')).toBe(2);
    for (const key of [user, acmeAdmin]) {
      const full = await call('POST', '/v1/runs', key, { prompt: 'x' });
      expect(full.status).toBe(429);
      expect(full.json.error.code).toBe('too_many_active_runs');
      expect(full.json.error.message).toContain('at most 2');
    }
    const [first] = (await call('GET', '/v1/runs', user)).json.runs as Array<{ id: string }>;
    expect((await call('POST', `/v1/runs/${first!.id}/cancel`, user)).status).toBe(202);
    expect((await call('POST', '/v1/runs', user, { prompt: 'x' })).status).toBe(202);
  });

  it('follows the fleet’s cap without an override, and an override of 0 lifts it', async () => {
    const other = { authorization: `Bearer ${await harness.createKey({ tenant: 'other', scopes: ['runs:write'] })}` };
    expect((await call('POST', '/v1/runs', other, { prompt: 'x' })).status).toBe(202);
    expect((await call('POST', '/v1/runs', other, { prompt: 'x' })).json.error.code).toBe('too_many_active_runs');
    // The fleet's maxTurns (30) binds it too.
    expect((await call('POST', '/v1/runs', other, { prompt: 'x', maxTurns: 31 })).json.error.code).toBe('max_turns_above_tenant_maximum');
    expect((await call('PUT', policyPath('other'), harness.auth, { maxConcurrentRuns: 0 })).status).toBe(200);
    for (let index = 0; index < 3; index += 1) expect((await call('POST', '/v1/runs', other, { prompt: 'x' })).status).toBe(202);
    expect(await activeRuns('other')).toBe(4);
  });
});
