// The fleet-wide kill switch through the real tool queue, with two tool workers: it trips at
// threshold and volume (not below the volume), then every write tool refuses in every worker
// while reads and runs go on; no write lands after the trip; an operator reset restores writes.
// Every run here is tenant `default`, the whole fleet: BUILDFLEET_KILLSWITCH_FLEET_MIN_TENANTS=1
// makes its spike fleet-wide, the behaviour before the switch had scopes. The scoped behaviour
// (one tenant's spike stays its own) is kill-switch-scopes.test.ts's subject.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WRITE_TOOLS } from '../../src/domain/profile.js';
import { registerKillSwitchRoutes } from '../../src/api/routes/kill-switch-routes.js';
import { bare, startToolOutputFleet, type ToolOutputFleet } from '../support/tool-output-fleet.js';
import { WRITE_TOOL_INPUTS } from '../support/write-tool-inputs.js';

let harness: ToolOutputFleet;
let admin: FastifyInstance;

beforeAll(async () => {
  harness = await startToolOutputFleet({
    label: 'killswitch',
    toolWorkers: 2,
    // Small per-worker concurrency so the jobs spread over both workers.
    env: { BUILDFLEET_TOOL_CONCURRENCY: '2', BUILDFLEET_KILLSWITCH_THRESHOLD: '0.25', BUILDFLEET_KILLSWITCH_MIN_VOLUME: '20', BUILDFLEET_KILLSWITCH_FLEET_MIN_TENANTS: '1' },
  });
  admin = Fastify();
  registerKillSwitchRoutes(admin, harness.fleet);
  await admin.ready();
});
afterAll(async () => {
  await admin?.close();
  await harness?.close();
});

describe('the kill switch', () => {
  let tripAtMs = 0;
  let writer = '';

  it('does not trip below the minimum volume, then trips on the output that reaches it', async () => {
    const writerRun = await harness.newRun();
    writer = writerRun.id;
    await harness.callTool(writer, 'write_file', { path: 'index.html', content: '<h1>Bakery</h1>' });
    // That valid output counts too: 1 valid + 18 invalid = 19 outputs, under the volume of 20.
    const reader = await harness.newRun({ phase: 'verifying', status: 'running' });
    const broken = { url: `${harness.upstream.origin}/fault/truncated_json` };
    for (let index = 0; index < 18; index += 1) {
      expect((await harness.callTool(reader.id, 'fetch_url_live', broken)).error_reason).toBe('invalid_json');
    }
    expect(await harness.killSwitch.getState()).toMatchObject({ mode: 'read_write', window: { total: 19, invalid: 18 } });

    await harness.callTool(reader.id, 'fetch_url_live', broken, { turn: 7 });
    const state = await harness.killSwitch.getState();
    expect(state).toMatchObject({ mode: 'read_only', source: 'auto', lastTrip: { total: 20, invalid: 19, rate: 0.95, tool: 'fetch_url_live', reason: 'invalid_json' } });
    tripAtMs = state.lastTrip?.atMs ?? 0;
    const trip = (await harness.events(reader.id)).map(bare).find((event) => event.event === 'killswitch-trip');
    expect(trip).toMatchObject({
      run_id: reader.id,
      step: 7,
      event: 'killswitch-trip',
      tool: 'fetch_url_live',
      reason: 'invalid_json',
      window: { total: 20, invalid: 19, rate: 0.95 },
      threshold: 0.25,
      min_volume: 20,
      window_ms: 60_000,
      at_ms: tripAtMs,
    });
  });

  it('refuses every write tool in every worker, while reads and runs keep going', async () => {
    const run = await harness.newRun();
    const calls = [...WRITE_TOOLS].flatMap((tool) => {
      const input = tool === 'fetch_image' ? { url: `${harness.upstream.origin}/logo.png`, ...(WRITE_TOOL_INPUTS[tool]) } : WRITE_TOOL_INPUTS[tool];
      return [0, 1, 2].map(() => harness.enqueueTool(run.id, tool, input).then((id) => ({ tool, id })));
    });
    const ids = await Promise.all(calls);
    for (const { tool, id } of ids) {
      const result = await harness.waitForResult(run.id, id);
      expect(result, tool).toMatchObject({ is_error: true, error_code: 'killswitch_read_only' });
      expect(result.content).toContain('kill switch');
    }
    const refusals = harness.records.filter((record) => record.kind === 'refused' && record.detail === 'killswitch');
    expect(new Set(refusals.map((record) => record.tool))).toEqual(new Set(WRITE_TOOLS));
    expect(new Set(refusals.map((record) => record.worker))).toEqual(new Set([0, 1]));
    expect(harness.records.filter((record) => record.kind === 'state' && record.detail === 'read_only').length).toBeGreaterThan(0);

    // Reads (and run bookkeeping) still work; the run is still going.
    expect(await harness.callTool(writer, 'read_file', { path: 'index.html' })).toMatchObject({ is_error: false, output: { content: '<h1>Bakery</h1>' } });
    expect(await harness.callTool(writer, 'list_files', {})).toMatchObject({ is_error: false, output: { count: 1 } });
    expect(await harness.callTool(run.id, 'fetch_url_live', { url: `${harness.upstream.origin}/valid/html` })).toMatchObject({ is_error: false });
    expect(await harness.callTool(run.id, 'todo_write', { todos: [{ id: 'site', title: 'Site', phase: 'build' }] })).toMatchObject({ is_error: false });
    expect((await harness.fleet.store.getRun(run.id))?.status).toBe('running');

    // Nothing landed after the trip.
    for (const runId of [writer, run.id]) {
      for (const entry of await harness.journal(runId)) expect(entry.at_ms).toBeLessThanOrEqual(tripAtMs);
    }
    expect(await harness.journal(run.id)).toEqual([]);
  });

  it('shows its state to operators and is reset by them, which restores writes', async () => {
    const shown = await admin.inject({ method: 'GET', url: '/v1/admin/killswitch' });
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toMatchObject({ mode: 'read_only', source: 'auto', window: { total: expect.any(Number), invalid: expect.any(Number), rate: expect.any(Number) } });
    expect(shown.json().reason).toContain('tool outputs invalid');
    expect(shown.json().since).toBe(new Date(tripAtMs).toISOString());

    const reset = await admin.inject({ method: 'POST', url: '/v1/admin/killswitch', payload: { mode: 'read_write', reason: 'upstream fixed' } });
    expect(reset.statusCode).toBe(200);
    expect(reset.json()).toMatchObject({ mode: 'read_write', reason: 'upstream fixed', source: 'operator', window: { total: 0, invalid: 0, rate: 0 } });
    const run = await harness.newRun();
    expect(await harness.callTool(run.id, 'write_file', { path: 'again.html', content: '<p>again</p>' })).toMatchObject({ is_error: false });
    expect((await harness.journal(run.id)).map((entry) => entry.target)).toEqual(['again.html']);
  });

  it('lets no write land after a trip that happens while writes are in flight', async () => {
    const runs = await Promise.all(Array.from({ length: 8 }, () => harness.newRun()));
    const enqueued: Array<{ runId: string; id: string }> = [];
    for (let index = 0; index < 120; index += 1) {
      const runId = runs[index % runs.length]!.id;
      enqueued.push({ runId, id: await harness.enqueueTool(runId, 'write_file', { path: `page-${index}.html`, content: `<p>${index}</p>` }) });
    }
    // Trip while the workers are busy with the queue.
    for (;;) {
      const landedSoFar = (await Promise.all(runs.map((run) => harness.journal(run.id)))).reduce((sum, journal) => sum + journal.length, 0);
      if (landedSoFar >= 15) break;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const tripped = await harness.killSwitch.setMode({ mode: 'read_only', reason: 'race test' });
    const results = await Promise.all(enqueued.map(({ runId, id }) => harness.waitForResult(runId, id)));
    const refused = results.filter((result) => result.error_code === 'killswitch_read_only').length;
    const landed = results.filter((result) => !result.is_error).length;
    expect(refused + landed).toBe(120);
    expect(refused).toBeGreaterThan(0);
    expect(landed).toBeGreaterThanOrEqual(15);
    let journaled = 0;
    let afterTrip = 0;
    for (const run of runs) {
      for (const entry of await harness.journal(run.id)) {
        journaled += 1;
        if (entry.at_ms > (tripped.sinceMs ?? 0)) afterTrip += 1;
      }
    }
    // One server: the switch is judged in each write's own step, so none lands after the trip. A
    // cluster splits that check (src/engine/effects/write-fence.ts): at most the writes in flight
    // at the trip (2 workers x BUILDFLEET_TOOL_CONCURRENCY 2), each past its switch step, land.
    expect(afterTrip).toBeLessThanOrEqual(process.env.BUILDFLEET_REDIS_CLUSTER_NODES ? 4 : 0);
    // Every write that reported success is in the journal; no refused one is.
    expect(journaled).toBe(landed);
    await harness.killSwitch.setMode({ mode: 'read_write', reason: 'race over' });
  });
});

describe('the kill switch with a cool-down (half-open)', () => {
  let cooled: ToolOutputFleet;
  beforeAll(async () => {
    cooled = await startToolOutputFleet({
      label: 'kshalfopen',
      env: { BUILDFLEET_KILLSWITCH_THRESHOLD: '0.5', BUILDFLEET_KILLSWITCH_MIN_VOLUME: '2', BUILDFLEET_KILLSWITCH_COOLDOWN_MS: '300', BUILDFLEET_KILLSWITCH_FLEET_MIN_TENANTS: '1' },
    });
  });
  afterAll(async () => cooled?.close());

  it('lets one probe write through after the cool-down; a valid probe output closes the switch', async () => {
    const reader = await cooled.newRun({ phase: 'verifying', status: 'running' });
    for (let index = 0; index < 2; index += 1) {
      await cooled.callTool(reader.id, 'fetch_url_live', { url: `${cooled.upstream.origin}/fault/graphql_errors` });
    }
    expect((await cooled.killSwitch.getState()).mode).toBe('read_only');
    const run = await cooled.newRun();
    expect(await cooled.callTool(run.id, 'write_file', { path: 'a.html', content: 'a' })).toMatchObject({ error_code: 'killswitch_read_only' });

    await new Promise((resolve) => setTimeout(resolve, 350));
    const probe = await cooled.callTool(run.id, 'write_file', { path: 'b.html', content: 'b' }, { turn: 9 });
    expect(probe.is_error).toBe(false);
    expect(await cooled.killSwitch.getState()).toMatchObject({ mode: 'read_write', source: 'auto' });
    const events = (await cooled.events(run.id)).map(bare);
    expect(events).toContainEqual(expect.objectContaining({ event: 'tool-call-start', tool: 'write_file', killswitch_probe: true }));
    expect(events).toContainEqual({ run_id: run.id, step: 9, event: 'killswitch-probe', tool: 'write_file', outcome: 'probe_closed', mode: 'read_write', scope: 'fleet', scope_id: 'fleet' });
    expect(await cooled.callTool(run.id, 'write_file', { path: 'c.html', content: 'c' })).toMatchObject({ is_error: false });
    expect(cooled.records.filter((record) => record.kind === 'state').map((record) => record.detail)).toEqual(
      expect.arrayContaining(['read_only', 'half_open', 'read_write']),
    );
  });
});
