// The catalog check through the real SDK against the simulator's Models API (its own catalog,
// written apart from the fleet's), and against an API that fails or answers malformed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FleetMetrics } from '../fleet/fleet-metrics.js';
import { modelsApiOfClient } from '../providers/models-api-source.js';
import { lookupModel, type ModelDescription } from '../sim/model-catalog.js';
import { modelInfoOf } from '../sim/model-info.js';
import { startSimulator, type RunningSimulator } from '../sim/simulator-server.js';
import { ModelDescriptions } from './model-descriptions.js';
import { ModelsApiCheck, type ModelsApiSource } from './models-api-check.js';

/** A model released after the fleet's catalog was written: Sonnet 5.5's facts under a new id. */
const NEWER: ModelDescription = { ...lookupModel({ model: 'claude-sonnet-5-5' })!, id: 'claude-sonnet-6', names: ['claude-sonnet-6'], displayName: 'Claude Sonnet 6', releasedOn: '2026-11-20', maxOutputTokens: 96_000, effortLevels: ['low', 'medium', 'high'] };

let simulator: RunningSimulator;
beforeAll(async () => {
  simulator = await startSimulator({ extraModels: [NEWER] });
});
afterAll(() => simulator?.close());

function sourceOf(baseURL: string): ModelsApiSource {
  return modelsApiOfClient({ provider: 'anthropic', client: new Anthropic({ baseURL, apiKey: 'test-key', maxRetries: 0, timeout: 5_000 }) });
}

/** A logger whose lines the test reads. */
function capturingLogger(): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }) };
}

function checkOf({ source, overrides = {}, descriptions = new ModelDescriptions(), metrics }: { source: ModelsApiSource; overrides?: Record<string, object>; descriptions?: ModelDescriptions; metrics?: FleetMetrics }) {
  const { logger, lines } = capturingLogger();
  const check = new ModelsApiCheck({ source, overrides, descriptions, logger, intervalMs: 60_000, ...(metrics ? { observer: metrics.modelsApiCheckObserver() } : {}) });
  return { check, lines, descriptions };
}

describe('the catalog check against the simulated Models API', () => {
  it('agrees with the simulator on every documented model, and holds every listed model', async () => {
    const { check, descriptions } = checkOf({ source: sourceOf(simulator.url) });
    const result = await check.runOnce();
    if (!result.ok) throw new Error(result.error);
    // The two catalogs are written separately from the documentation; the first run of this check
    // found them apart on Claude Mythos Preview's retirement date (the simulator lacked the SDK's
    // "June 30th, 2026"), since mended in the simulator.
    expect(result.disagreements).toEqual([]);
    expect(result.malformed).toBe(0);
    // claude-sim is the simulator's own model; claude-sonnet-6 this test's extra one.
    expect(result.unknownToCatalog.sort()).toEqual(['claude-sim', 'claude-sonnet-6']);
    // Retired models are listed too (asked for explicitly), and aliases resolve through the catalog.
    expect(descriptions.describe('claude-sonnet-4-0')).toMatchObject({ id: 'claude-sonnet-4-20250514', lifecycle: 'retired', retiresOn: '2026-06-15' });
    expect(descriptions.describe('claude-sonnet-6')).toMatchObject({ maxTokens: 96_000, effortLevels: ['low', 'medium', 'high'], thinkingTypes: { adaptive: true, enabled: false, betweenTools: true, disabled: false } });
  });

  it('shows an operator override that contradicts the API as a disagreement: logged once, and on the gauge until it is gone', async () => {
    const metrics = new FleetMetrics({ role: 'test', defaultMetrics: false });
    const { check, lines } = checkOf({
      source: sourceOf(simulator.url),
      overrides: { 'claude-opus-4-8': { maxOutputTokens: 64_000, strictTools: false }, 'claude-sonnet-4-5': { effortLevels: ['high'] } },
      metrics,
    });
    const first = await check.runOnce();
    await check.runOnce();
    if (!first.ok) throw new Error(first.error);
    expect(first.disagreements).toEqual([
      { model: 'claude-opus-4-8', field: 'max_tokens', catalog: '64000', api: '128000' },
      { model: 'claude-opus-4-8', field: 'structured_outputs', catalog: 'false', api: 'true' },
      // An override named by an alias is compared under that alias.
      { model: 'claude-sonnet-4-5', field: 'effort', catalog: 'high', api: 'none' },
    ]);
    const warnings = lines.filter((line) => line.event === 'model-catalog-disagreement' && line.model === 'claude-opus-4-8');
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatchObject({ level: 40, field: 'max_tokens', catalog: '64000', api: '128000' });
    const exposition = await metrics.registry.metrics();
    expect(exposition).toContain('buildfleet_model_catalog_disagreements{model="claude-opus-4-8",field="max_tokens",role="test"} 1');
    expect(exposition).toContain('buildfleet_model_catalog_disagreements{model="claude-sonnet-4-5",field="effort",role="test"} 1');
    expect(exposition).toContain('buildfleet_models_api_checks_total{outcome="ok",role="test"} 2');
  });
});

describe('a Models API that fails', () => {
  let broken: Server;
  let brokenUrl: string;
  /** What the broken API answers next. */
  let answer: { status: number; body: string } = { status: 200, body: '{}' };
  beforeAll(async () => {
    broken = createServer((_request, response) => {
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(answer.body);
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => broken.close(() => resolve())));

  it('logs and counts a refused connection or an auth error, and keeps what the last check read', async () => {
    const metrics = new FleetMetrics({ role: 'test', defaultMetrics: false });
    const descriptions = new ModelDescriptions();
    // A good check first: what it read must survive the failures.
    await checkOf({ source: sourceOf(simulator.url), descriptions }).check.runOnce();
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const refused = checkOf({ source: sourceOf(`http://127.0.0.1:${closedPort}`), descriptions, metrics });
    expect(await refused.check.runOnce()).toMatchObject({ ok: false });
    expect(refused.lines.find((line) => line.event === 'models-api-check-failed')).toMatchObject({ level: 40, provider: 'anthropic' });

    answer = { status: 401, body: JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }) };
    const unauthorized = checkOf({ source: sourceOf(brokenUrl), descriptions, metrics });
    const failed = await unauthorized.check.runOnce();
    expect(failed).toMatchObject({ ok: false });
    expect(!failed.ok && failed.error).toContain('invalid x-api-key');
    expect(await metrics.registry.metrics()).toContain('buildfleet_models_api_checks_total{outcome="failed",role="test"} 2');
    expect(descriptions.describe('claude-sim')).toBeDefined();
  });

  it('leaves out a malformed model with a logged error and reads the rest; a malformed page fails the check', async () => {
    const good = modelInfoOf({ model: NEWER });
    const malformed = { ...modelInfoOf({ model: lookupModel({ model: 'claude-sim' })! }), max_tokens: 'lots', capabilities: { thinking: {} } };
    answer = { status: 200, body: JSON.stringify({ data: [good, malformed], has_more: false, first_id: good.id, last_id: malformed.id }) };
    const { check, lines, descriptions } = checkOf({ source: sourceOf(brokenUrl) });
    const result = await check.runOnce();
    expect(result).toMatchObject({ ok: true, described: 1, malformed: 1 });
    expect(descriptions.describe('claude-sonnet-6')).toBeDefined();
    expect(descriptions.describe('claude-sim')).toBeUndefined();
    const error = lines.find((line) => line.event === 'models-api-malformed');
    expect(error).toMatchObject({ level: 50, model: 'claude-sim' });
    expect(String(error?.problem)).toContain('max_tokens');

    answer = { status: 200, body: '<html>maintenance</html>' };
    expect(await check.runOnce()).toMatchObject({ ok: false });
    // What the last good check read is kept.
    expect(descriptions.describe('claude-sonnet-6')).toBeDefined();
  });

  it('trusts a description for three intervals, then goes back to the catalog alone', async () => {
    let now = 1_000_000;
    const descriptions = new ModelDescriptions(() => now);
    const { logger } = capturingLogger();
    await new ModelsApiCheck({ source: sourceOf(simulator.url), overrides: {}, descriptions, logger, intervalMs: 1_000, clock: () => now }).runOnce();
    now += 2_999;
    expect(descriptions.describe('claude-sim')).toBeDefined();
    now += 1;
    expect(descriptions.describe('claude-sim')).toBeUndefined();
  });
});
