// GET /v1/overview over a whole in-process fleet with run history (real Redis, real PostgreSQL, the
// simulator over HTTP through the real SDK, real workers): a few builds run — two tenants, one
// failing and one writing tool calls as text through simulator scenarios — are archived, and the
// overview's figures are what ran: runs by outcome, cost by tenant and model, the turns measured, and
// health signals equal to the ones the fleet's metrics counted for the same turns. Also: tenant
// scoping, the 400 of a bad range, and the answer of a fleet without history.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/auth/api-key-store.js';
import { HEALTH_THRESHOLDS } from '../../src/domain/health-thresholds.js';
import { OVERVIEW_RANGES } from '../../src/domain/overview-ranges.js';
import { FleetMetrics } from '../../src/fleet/fleet-metrics.js';
import type { ArchivedRun } from '../../src/history/run-archive.js';
import type { OverviewResponse } from '../../src/api/overview/overview-schemas.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';
import { until } from '../support/until.js';

const SLOW = 120_000;

let database: TestDatabase;
let fleet: InProcessFleet;
let metrics: FleetMetrics;
let acmeKey: string;
const archived: ArchivedRun[] = [];

async function overview(query: string, key = fleet.apiKey): Promise<{ status: number; body: OverviewResponse & { error?: { code: string } } }> {
  const response = await fetch(`${fleet.apiUrl}/v1/overview${query}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, body: (await response.json()) as OverviewResponse & { error?: { code: string } } };
}

/** Sum of a counter's values (every label set). */
async function counted(counter: { get(): Promise<{ values: Array<{ value: number; labels: Record<string, string | number> }> }> }, toolCount?: string) {
  const { values } = await counter.get();
  return values.filter((entry) => toolCount === undefined || String(entry.labels.tool_count) === toolCount).reduce((sum, entry) => sum + entry.value, 0);
}

beforeAll(async () => {
  database = await createTestDatabase('overview');
  metrics = new FleetMetrics({ role: 'test', defaultMetrics: false });
  fleet = await startInProcessFleet({
    label: 'overview',
    // Strict tools off: the simulator writes no call of a strict tool as text (text_tool_calls below).
    env: { DATABASE_URL: database.url, BUILDFLEET_RATE_LIMIT_PER_MINUTE: '0', BUILDFLEET_STRICT_TOOLS: 'false' },
    metrics,
  });
  acmeKey = (await new ApiKeyStore({ redis: fleet.fleet.redis, keys: fleet.fleet.store.keys }).create({ tenant: 'acme', scopes: ['runs:read'] })).token;
  const submitted = await Promise.all([
    fleet.submit({ tenant: 'default', prompt: 'A landing page for a bakery called Harbor Lights.' }),
    fleet.submit({ tenant: 'default', prompt: 'A page for a florist.', options: { scenario: 'text_tool_calls' } }),
    fleet.submit({ tenant: 'default', prompt: 'A page for a cafe.', options: { scenario: 'unknown_stop_reason' } }),
    fleet.submit({ tenant: 'acme', prompt: 'A page for a bike shop.' }),
  ]);
  for (const run of submitted) await fleet.waitForRun(run.id, SLOW);
  for (const run of submitted) archived.push(await until(`run ${run.id} archived`, () => fleet.fleet.history!.getRun(run.id), SLOW));
}, SLOW * 2);

afterAll(async () => {
  await fleet?.close();
  await database?.drop();
});

describe('GET /v1/overview with run history', () => {
  it('counts the runs that ran, by outcome, tenant and model, with their cost', async () => {
    expect(archived.map((run) => run.status).sort()).toEqual(['failed', 'succeeded', 'succeeded', 'succeeded']);
    const { status, body } = await overview('?range=1h');
    expect(status).toBe(200);
    expect(body).toMatchObject({ range: '1h', tenant: null, history: { state: 'on', message: null }, bucketSeconds: OVERVIEW_RANGES['1h'].bucketSeconds });
    expect(body.bucketStarts).toHaveLength(OVERVIEW_RANGES['1h'].buckets);
    expect(body.thresholds).toEqual(HEALTH_THRESHOLDS);
    const figures = body.figures!;
    expect(figures.runs).toMatchObject({ total: 4, byStatus: { succeeded: 3, failed: 1, refused: 0, cancelled: 0 }, successRate: 0.75 });
    expect(figures.runs.series.succeeded.reduce((sum, value) => sum + value, 0)).toBe(3);
    // Each run sits in the bucket of its creation time.
    for (const run of archived) {
      const bucket = Math.floor((Date.parse(run.createdAt) - Date.parse(body.from)) / (body.bucketSeconds * 1000));
      expect(figures.runs.series[run.status][bucket], run.id).toBeGreaterThan(0);
    }
    const usd = (runs: ArchivedRun[]) => runs.reduce((sum, run) => sum + run.costMicroUsd, 0) / 1_000_000;
    expect(figures.cost.totalUsd).toBeCloseTo(usd(archived), 9);
    expect(figures.cost.totalUsd).toBeGreaterThan(0);
    const byTenant = Object.fromEntries(figures.cost.byTenant.map((entry) => [entry.name, entry.totalUsd]));
    expect(byTenant.default).toBeCloseTo(usd(archived.filter((run) => run.tenant === 'default')), 9);
    expect(byTenant.acme).toBeCloseTo(usd(archived.filter((run) => run.tenant === 'acme')), 9);
    expect(figures.cost.byModel.map((entry) => entry.name)).toEqual([...new Set(archived.map((run) => run.model))]);
    // The queues now: an admin sees them, every worker connected.
    expect(body.queues?.model.workers).toBeGreaterThan(0);
    expect(body.killSwitch).toMatchObject({ mode: 'read_write', scopesTripped: 0, recentTrips: [] });
  });

  it('measures every archived turn, and counts the health signals as the metrics did', async () => {
    const figures = (await overview('?range=24h')).body.figures!;
    const turns = (await Promise.all(archived.map((run) => fleet.fleet.history!.readTurns(run.id)))).flat();
    expect(figures.latency.turns).toBe(turns.length);
    const durations = turns.map((turn) => turn.turnDurationMs).sort((left, right) => left - right);
    expect(figures.latency.turnP50Ms).toBeGreaterThanOrEqual(durations[0]!);
    expect(figures.latency.turnP99Ms).toBeLessThanOrEqual(durations.at(-1)!);
    expect(figures.latency.modelP50Ms).not.toBeNull();

    const health = figures.health;
    expect(health.turns).toBe(await counted(metrics.turns));
    expect(health.turnsExpectingTool).toBe(await counted(metrics.turnsExpectingTool));
    expect(health.turnsWithToolUse).toBe(await counted(metrics.turnsWithToolUse));
    expect(health.jsonInText).toBe(await counted(metrics.jsonInText));
    expect(health.fenceOnlyStops).toBe(await counted(metrics.fenceOnlyStops));
    expect(health.recoveries).toBe(await counted(metrics.recoveries));
    // The text_tool_calls build wrote calls as text, which were recovered.
    expect(health.jsonInText).toBeGreaterThan(0);
    expect(health.recoveries).toBeGreaterThan(0);
    expect(health.toolUseRate).toBeCloseTo(health.turnsWithToolUse / health.turnsExpectingTool, 12);
    // By tool count, as the metrics' tool_count label splits them.
    for (const row of health.byToolCount) {
      expect(row.toolCount).not.toBeNull();
      expect(row.turnsExpectingTool, `tool count ${row.toolCount}`).toBe(await counted(metrics.turnsExpectingTool, String(row.toolCount)));
      expect(row.turnsWithToolUse, `tool count ${row.toolCount}`).toBe(await counted(metrics.turnsWithToolUse, String(row.toolCount)));
    }
    expect(health.byToolCount.reduce((sum, row) => sum + row.turns, 0)).toBe(health.turns);
  });

  it('shows a tenant key its own tenant only, and an admin the tenant it names', async () => {
    const own = await overview('?range=1h', acmeKey);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ tenant: 'acme', queues: null, figures: { runs: { total: 1, byStatus: { succeeded: 1 } } } });
    expect(own.body.figures!.cost.byTenant.map((entry) => entry.name)).toEqual(['acme']);
    const other = await overview('?range=1h&tenant=default', acmeKey);
    expect(other.status).toBe(403);
    expect(other.body.error?.code).toBe('forbidden');
    const named = await overview('?range=1h&tenant=default');
    expect(named.body).toMatchObject({ tenant: 'default', figures: { runs: { total: 3, byStatus: { succeeded: 2, failed: 1 } } } });
    // A tenant with no run in the range: zeros and nulls, not an error.
    const quiet = await overview('?range=1h&tenant=quiet');
    expect(quiet.status).toBe(200);
    expect(quiet.body.figures).toMatchObject({
      runs: { total: 0, successRate: null },
      cost: { totalUsd: 0, byTenant: [] },
      latency: { turns: 0, turnP50Ms: null, modelP99Ms: null },
      health: { turns: 0, toolUseRate: null, byToolCount: [] },
    });
  });

  it('refuses a range it does not know, and an unknown parameter, with 400 invalid_query', async () => {
    for (const query of ['?range=2h', '?range=', '?since=1h', '?tenant=-bad']) {
      const { status, body } = await overview(query);
      expect(status, query).toBe(400);
      expect(body.error?.code, query).toBe('invalid_query');
    }
  });
});

describe('GET /v1/overview without run history', () => {
  it('answers the queues and the kill switch, and says history is off', async () => {
    const bare = await startInProcessFleet({ label: 'overviewbare' });
    try {
      const response = await fetch(`${bare.apiUrl}/v1/overview`, { headers: { authorization: `Bearer ${bare.apiKey}` } });
      expect(response.status).toBe(200);
      const body = (await response.json()) as OverviewResponse;
      expect(body).toMatchObject({ range: '24h', history: { state: 'off' }, figures: null, killSwitch: { mode: 'read_write' } });
      expect(body.queues?.tool.workers).toBeGreaterThan(0);
    } finally {
      await bare.close();
    }
  }, SLOW);
});
