// The Models API's word in a running fleet (docs/models.md): with the catalog check on, a model
// only the provider describes is submitted over HTTP and runs end to end through the real queue
// on the API's limits and thinking, a model the API reports retired is refused like a
// catalog-retired one, and a fleet whose Models API fails still serves the catalog's models.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FleetMetrics } from '../../src/fleet/fleet-metrics.js';
import { modelsApiOfClient } from '../../src/providers/models-api-source.js';
import { lookupModel, type ModelDescription } from '../../src/sim/model-catalog.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

/** Retired by the provider after the fleet's catalog was written (the catalog has never heard of it). */
const RETIRED: ModelDescription = {
  ...lookupModel({ model: 'claude-sonnet-5' })!,
  id: 'claude-sonnet-5-preview',
  names: ['claude-sonnet-5-preview'],
  lifecycle: 'retired',
  deprecatedOn: '2026-07-01',
  retiresOn: '2026-09-01',
};

async function post(fleet: InProcessFleet, body: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${fleet.apiUrl}/v1/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${fleet.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

describe('a fleet that checks its catalog against the Models API', () => {
  let fleet: InProcessFleet;
  const metrics = new FleetMetrics({ role: 'in-process', defaultMetrics: false });
  beforeAll(async () => {
    // The override contradicts the API on purpose, so the check has a disagreement to export.
    fleet = await startInProcessFleet({
      label: 'modelsapi',
      modelsApiCheck: true,
      simulator: { extraModels: [RETIRED] },
      metrics,
      env: { BUILDFLEET_RETRY_BASE_MS: '20', BUILDFLEET_MODEL_CAPABILITIES: '{"claude-opus-4-8":{"maxOutputTokens":64000}}' },
    });
  }, 120_000);
  afterAll(() => fleet?.close());

  it('runs a model only the Models API describes end to end, on the API’s limits and thinking', async () => {
    // claude-sim is the simulator's own model: not in the fleet's catalog, described by its Models
    // API (1M context, 128K output, manual and adaptive thinking). Unknown, it would be refused;
    // on the catalog's fallback it would get 8,192 tokens and no thinking.
    const created = await post(fleet, { prompt: 'Build a small bakery website.', model: 'claude-sim', thinking: { budgetTokens: 20_000 } });
    expect(created.status, JSON.stringify(created.json)).toBe(202);
    const run = await fleet.waitForRun(created.json.id, 60_000);
    expect(run).toMatchObject({ status: 'succeeded', model: 'claude-sim', maxTokensCeiling: 128_000, thinkingBudgetTokens: 20_000 });
    // Every call went to claude-sim with the run's budget, and the simulator served it.
    const calls = fleet.simulator.requests.filter((request) => request.path === '/v1/messages' && (request.body as { model?: string })?.model === 'claude-sim');
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.every((request) => request.status === 200 && (request.body as { thinking?: unknown }).thinking !== undefined)).toBe(true);
  });

  it('refuses a model the API reports retired, as it refuses a catalog-retired one', async () => {
    const refused = await post(fleet, { prompt: 'Bakery', model: 'claude-sonnet-5-preview' });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ code: 'model_retired' });
    expect(refused.json.error.message).toContain('2026-09-01');
  });

  it('exports the check on the process’s metrics', async () => {
    const exposition = await metrics.registry.metrics();
    expect(exposition).toContain('buildfleet_models_api_checks_total{outcome="ok",role="in-process"} 1');
    expect(exposition).toContain('buildfleet_model_catalog_disagreements{model="claude-opus-4-8",field="max_tokens",role="in-process"} 1');
  });
});

describe('a fleet whose Models API fails', () => {
  let fleet: InProcessFleet;
  beforeAll(async () => {
    // Nothing listens on port 9 of loopback (discard): every check is refused.
    const unreachable = modelsApiOfClient({ provider: 'anthropic', client: new Anthropic({ baseURL: 'http://127.0.0.1:9', apiKey: 'test-key', maxRetries: 0, timeout: 2_000 }) });
    fleet = await startInProcessFleet({ label: 'modelsapifail', modelsApiCheck: unreachable, env: { BUILDFLEET_RETRY_BASE_MS: '20' } });
  }, 120_000);
  afterAll(() => fleet?.close());

  it('still serves the catalog’s models, and knows no model only the API would describe', async () => {
    const created = await post(fleet, { prompt: 'Build a small bakery website.', model: 'claude-sonnet-5-5' });
    expect(created.status).toBe(202);
    expect(await fleet.waitForRun(created.json.id, 60_000)).toMatchObject({ status: 'succeeded' });
    const unknown = await post(fleet, { prompt: 'Bakery', model: 'claude-sim' });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatchObject({ code: 'unknown_model' });
  });
});
