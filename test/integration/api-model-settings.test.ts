// POST /v1/runs against the model capability table: unknown models and thinking requests the model
// cannot take are refused with their registered codes before anything is created; accepted runs
// show their model, effective max_tokens and thinking budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiTestHarness, type ApiTestHarness } from '../../src/api/testing/api-test-harness.js';

let harness: ApiTestHarness;
let permissive: ApiTestHarness;
/** The fleet of `permissive` (same Redis prefix) after an operator took the unknown models away. */
let tightened: ApiTestHarness;

beforeAll(async () => {
  harness = await createApiTestHarness({ label: 'apimodels' });
  permissive = await createApiTestHarness({
    label: 'apimodelsopen',
    environment: {
      BUILDFLEET_ALLOW_UNKNOWN_MODELS: 'true',
      BUILDFLEET_MODEL_CAPABILITIES: JSON.stringify({ 'claude-sonnet-4-6': { defaultThinkingBudgetTokens: 2048 } }),
    },
  });
  tightened = await createApiTestHarness({ label: 'apimodelstight', environment: { BUILDFLEET_PREFIX: permissive.prefix } });
});

afterAll(async () => {
  await harness?.close();
  await tightened?.close();
  await permissive?.close();
});

const post = (target: ApiTestHarness, payload: unknown) =>
  target.app.inject({ method: 'POST', url: '/v1/runs', payload: payload as object, headers: target.auth });
const view = async (target: ApiTestHarness, id: string) =>
  (await target.app.inject({ method: 'GET', url: `/v1/runs/${id}`, headers: target.auth })).json();
const runCount = (target: ApiTestHarness) => target.fleet.redis.zcard(target.fleet.store.keys.runsByTenant('default'));

describe('POST /v1/runs model settings', () => {
  it('shows the model, its default max_tokens and no thinking for a plain run', async () => {
    const response = await post(harness, { prompt: 'Bakery' });
    expect(response.statusCode).toBe(202);
    expect(await view(harness, response.json().id)).toMatchObject({ model: 'claude-sonnet-4-6', maxTokens: 16_384, thinkingBudgetTokens: null });
    const opus = await post(harness, { prompt: 'Bakery', model: 'claude-opus-4-5' });
    expect(await view(harness, opus.json().id)).toMatchObject({ model: 'claude-opus-4-5', maxTokens: 16_384 });
    const stored = await harness.fleet.store.getRun(opus.json().id);
    expect(stored).toMatchObject({ maxTokensCeiling: 64_000 });
  });

  it('refuses a retired model with model_retired naming its successor, creating nothing', async () => {
    const before = await runCount(harness);
    const response = await post(harness, { prompt: 'Bakery', model: 'claude-sonnet-4-0' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'model_retired',
      message: 'Model "claude-sonnet-4-0" was retired on 2026-06-15: requests to it fail. Use claude-sonnet-4-6 instead.',
    });
    expect(await runCount(harness)).toBe(before);
  });

  it('refuses an unknown model with unknown_model, creating nothing', async () => {
    const before = await runCount(harness);
    const response = await post(harness, { prompt: 'Bakery', model: 'claude-imaginary-9' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('unknown_model');
    expect(response.json().error.message).toContain('claude-sonnet-4-6');
    expect(await runCount(harness)).toBe(before);
  });

  it('turns thinking on with a budget and raises max_tokens to fit it', async () => {
    const response = await post(harness, { prompt: 'Bakery', thinking: { budgetTokens: 4096 } });
    expect(response.statusCode).toBe(202);
    expect(await view(harness, response.json().id)).toMatchObject({ thinkingBudgetTokens: 4096, maxTokens: 4096 + 16_384 });
  });

  it('validates the thinking request: minimum budget, model support, room under the model maximum', async () => {
    const before = await runCount(harness);
    const small = await post(harness, { prompt: 'Bakery', thinking: { budgetTokens: 1000 } });
    expect(small.statusCode).toBe(400);
    expect(small.json().error).toMatchObject({ code: 'invalid_body', message: expect.stringContaining('body.thinking.budgetTokens') });
    const tooLarge = await post(harness, { prompt: 'Bakery', model: 'claude-opus-4-5', thinking: { budgetTokens: 64_000 } });
    expect(tooLarge.statusCode).toBe(400);
    expect(tooLarge.json().error.code).toBe('thinking_budget_too_large');
    const contradictory = await post(harness, { prompt: 'Bakery', thinking: { enabled: false, budgetTokens: 2048 } });
    expect(contradictory.json().error.code).toBe('invalid_body');
    const unsupported = await post(permissive, { prompt: 'Bakery', model: 'some-proxy-model', thinking: { budgetTokens: 2048 } });
    expect(unsupported.statusCode).toBe(400);
    expect(unsupported.json().error.code).toBe('thinking_not_supported');
    expect(await runCount(harness)).toBe(before);
  });

  it('with unknown models allowed, gives them conservative limits; a model default budget applies unless turned off', async () => {
    const unknown = await post(permissive, { prompt: 'Bakery', model: 'some-proxy-model' });
    expect(unknown.statusCode).toBe(202);
    expect(await view(permissive, unknown.json().id)).toMatchObject({ model: 'some-proxy-model', maxTokens: 4096, thinkingBudgetTokens: null });
    const byDefault = await post(permissive, { prompt: 'Bakery' });
    expect(await view(permissive, byDefault.json().id)).toMatchObject({ thinkingBudgetTokens: 2048, maxTokens: 2048 + 16_384 });
    const off = await post(permissive, { prompt: 'Bakery', thinking: { enabled: false } });
    expect(await view(permissive, off.json().id)).toMatchObject({ thinkingBudgetTokens: null, maxTokens: 16_384 });
  });

  it('replays an Idempotency-Key before checking the model, so a capability change does not refuse a run already created', async () => {
    const payload = { prompt: 'Bakery', model: 'some-proxy-model' };
    const idempotent = { 'idempotency-key': 'model-replay-1' };
    const created = await permissive.app.inject({ method: 'POST', url: '/v1/runs', payload, headers: { ...permissive.auth, ...idempotent } });
    expect(created.statusCode).toBe(202);
    // The same body and key on a fleet that no longer allows unknown models: the run is returned.
    const replayed = await tightened.app.inject({ method: 'POST', url: '/v1/runs', payload, headers: { ...tightened.auth, ...idempotent } });
    expect(replayed.statusCode).toBe(202);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.json().id).toBe(created.json().id);
    // A new creation there is checked: refused, and the refused key stays free for a corrected retry.
    const fresh = { 'idempotency-key': 'model-replay-2' };
    const refused = await tightened.app.inject({ method: 'POST', url: '/v1/runs', payload, headers: { ...tightened.auth, ...fresh } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.code).toBe('unknown_model');
    const corrected = await tightened.app.inject({ method: 'POST', url: '/v1/runs', payload: { prompt: 'Bakery' }, headers: { ...tightened.auth, ...fresh } });
    expect(corrected.statusCode).toBe(202);
  });
});
