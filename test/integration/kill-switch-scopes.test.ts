// The scoped kill switch through the real queues of an in-process fleet (real Redis, the simulator
// through the SDK, the real API and sites origin), with the fleet's default scope settings:
//   - issue #16's incident: tenant B fetches its own SVG 24 times through fetch_url_live and trips
//     its scope; tenant A's build then succeeds with every one of its writes;
//   - a fleet-wide spike (one upstream failing for three tenants) still stops every write, any
//     tenant's;
//   - an upstream spike from two tenants stops the writes of the runs that read from it, only.
// Every trip says its scope in the run's events, in the metrics and on the admin endpoint, where
// an operator resets it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM_SVG, startFaultyUpstream, type FaultyUpstream } from '../../src/dev/faulty-upstream.js';
import { WRITE_TOOLS } from '../../src/domain/profile.js';
import { type StoredToolResult, readWriteJournal } from '../../src/engine/index.js';
import { FleetMetrics } from '../../src/fleet/fleet-metrics.js';
import { jobIds, toolJobSchema } from '../../src/jobs/job-catalog.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';
import { WRITE_TOOL_INPUTS } from '../support/write-tool-inputs.js';

let upstream: FaultyUpstream;
let harness: InProcessFleet;
let metrics: FleetMetrics;

beforeAll(async () => {
  upstream = await startFaultyUpstream();
  metrics = new FleetMetrics({ role: 'test', defaultMetrics: false });
  harness = await startInProcessFleet({ label: 'ksscopes', toolWorkers: 2, metrics, env: { BUILDFLEET_FETCH_ALLOWLIST: upstream.origin, BUILDFLEET_REAPER_INTERVAL_MS: '0' } });
});
afterAll(async () => {
  await harness?.close();
  await upstream?.close();
});

async function newRun(tenant: string): Promise<string> {
  const run = await harness.fleet.store.createRun({ tenant, prompt: 'direct tool calls', model: 'test', maxTurns: 40, maxTokens: 4096, options: {} });
  await harness.fleet.store.updateRun(run.id, { status: 'running', phase: 'building' });
  return run.id;
}

/** One tool call through the tool queue, as the model worker sends it; waits for its result. */
async function callTool(runId: string, name: string, input: unknown): Promise<StoredToolResult> {
  const toolUseId = `toolu_${randomBytes(8).toString('hex')}`;
  await harness.fleet.queues.own.tool.add(name, toolJobSchema.parse({ runId, turn: 1, toolUseId, name, input, parseMode: 'native', trace: {} }), { jobId: jobIds.tool(runId, toolUseId) });
  for (const deadline = Date.now() + 15_000; ; await new Promise((resolve) => setTimeout(resolve, 10))) {
    const stored = await harness.fleet.store.getStoredToolResult(runId, toolUseId);
    if (stored) return stored;
    if (Date.now() > deadline) throw new Error(`no result for ${name} of ${runId}`);
  }
}

async function admin(method: 'GET' | 'POST', body?: unknown): Promise<any> {
  const response = await fetch(`${harness.apiUrl}/v1/admin/killswitch`, {
    method,
    headers: { authorization: `Bearer ${harness.apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  expect(response.status).toBe(200);
  return response.json();
}

const events = (runId: string) => harness.fleet.store.readEvents(runId, '-', 100_000);

describe('one tenant tripping its scope', () => {
  let tripAtMs = 0;

  it("trips tenant B's scope alone when B fetches its own SVG 24 times", async () => {
    const spiky = await newRun('tenant-b');
    await callTool(spiky, 'write_file', { path: 'index.html', content: '<!doctype html><title>B</title><img src="logo.svg">' });
    await callTool(spiky, 'write_file', { path: 'logo.svg', content: UPSTREAM_SVG });
    const deployed = await callTool(spiky, 'deploy', {});
    const url = `${(deployed.output as { url: string }).url}logo.svg`;
    for (let index = 0; index < 24; index += 1) {
      const result = await callTool(spiky, 'fetch_url_live', { url });
      expect((result as { error_reason?: string }).error_reason, url).toBe('unexpected_content_type:image/svg+xml');
    }

    // 3 valid outputs (2 writes, the deploy) and 17 invalid ones reach the volume of 20.
    const trip = (await events(spiky)).find((event) => event.event === 'killswitch-trip');
    expect(trip).toMatchObject({ scope: 'tenant', scope_id: 'tenant:tenant-b', cause: 'volume', tool: 'fetch_url_live', mode: 'read_only', window: { total: 20, invalid: 17 } });
    expect(trip?.summary).toContain('tool outputs of tenant tenant-b invalid');
    tripAtMs = Number(trip?.at_ms);

    const state = await admin('GET');
    expect(state).toMatchObject({ mode: 'read_write', settings: { fleet_min_tenants: 3, upstream_min_tenants: 2 } });
    expect(state.scopes).toEqual([
      expect.objectContaining({ scope: 'tenant:tenant-b', kind: 'tenant', tenant: 'tenant-b', mode: 'read_only', source: 'auto', last_trip: expect.objectContaining({ cause: 'volume' }) }),
    ]);
    expect(state.recent_trips).toEqual([expect.objectContaining({ scope: 'tenant:tenant-b', run_id: spiky })]);

    const scraped = (await metrics.render()).body;
    expect(scraped).toMatch(/buildfleet_killswitch_trips_total\{[^}]*scope="tenant"[^}]*cause="volume"[^}]*\} 1/);
    expect(scraped).toMatch(/buildfleet_killswitch_scopes\{[^}]*scope="tenant"[^}]*mode="read_only"[^}]*\} 1/);
    expect(scraped).toMatch(/buildfleet_killswitch_scopes\{[^}]*scope="fleet"[^}]*mode="read_only"[^}]*\} 0/);
  });

  it("leaves tenant A's build succeeding with all its writes", async () => {
    const run = await harness.waitForRun((await harness.submit({ tenant: 'tenant-a' })).id, 60_000);
    expect(run.error).toBeNull();
    expect(run.status).toBe('succeeded');
    const journal = await readWriteJournal({ engine: harness.fleet.store, runId: run.id });
    expect(journal.length).toBeGreaterThan(3);
    for (const entry of journal) expect(entry.at_ms).toBeGreaterThan(tripAtMs);
    const writeEnds = (await events(run.id)).filter((event) => event.event === 'tool-call-end').filter((event) => WRITE_TOOLS.has(event.tool as never));
    expect(writeEnds.length).toBeGreaterThan(3);
    expect(writeEnds.filter((event) => event.ok !== true)).toEqual([]);
    expect(run.liveDeploy).not.toBeNull();
  });

  it("refuses tenant B's next run every write, naming its scope, until an operator resets it", async () => {
    const next = await newRun('tenant-b');
    const refused = await callTool(next, 'write_file', { path: 'index.html', content: '<p>again</p>' });
    expect(refused).toMatchObject({ is_error: true, error_code: 'killswitch_read_only' });
    expect(refused.content).toContain('The kill switch of tenant "tenant-b" is read_only');

    const reset = await admin('POST', { mode: 'read_write', scope: 'tenant:tenant-b', reason: 'B fixed its site' });
    expect(reset.scopes).toEqual([]);
    expect(await callTool(next, 'write_file', { path: 'index.html', content: '<p>again</p>' })).toMatchObject({ is_error: false });
  });
});

describe('a fleet-wide spike', () => {
  it('trips the fleet when one upstream fails for three tenants, and stops every write, any tenant\'s', async () => {
    const broken = `${upstream.origin}/fault/truncated_json`;
    const readers = await Promise.all(['tenant-c', 'tenant-d', 'tenant-e'].map(async (tenant) => ({ tenant, runId: await newRun(tenant) })));
    for (let round = 0; round < 7; round += 1) {
      for (const { runId } of readers) await callTool(runId, 'fetch_url_live', { url: broken });
    }
    const state = await admin('GET');
    expect(state).toMatchObject({ mode: 'read_only', source: 'auto', last_trip: { cause: 'upstream', tenants: 3, tool: 'fetch_url_live' } });
    expect(state.scopes.map((scope: { scope: string }) => scope.scope)).toEqual(['fleet']);
    const trip = (await Promise.all(readers.map(({ runId }) => events(runId)))).flat().find((event) => event.event === 'killswitch-trip');
    expect(trip).toMatchObject({ scope: 'fleet', scope_id: 'fleet', cause: 'upstream', tenants: 3, window: { total: 20, invalid: 20 } });

    // A tenant that had nothing to do with it: every write tool refused, nothing written.
    const bystander = await newRun('tenant-never-fetched');
    for (const tool of WRITE_TOOLS) {
      const input = tool === 'fetch_image' ? { ...WRITE_TOOL_INPUTS.fetch_image, url: `${upstream.origin}/logo.png` } : WRITE_TOOL_INPUTS[tool];
      const result = await callTool(bystander, tool, input);
      expect(result, tool).toMatchObject({ is_error: true, error_code: 'killswitch_read_only' });
      expect(result.content, tool).toContain('fleet-wide kill switch');
    }
    expect(await readWriteJournal({ engine: harness.fleet.store, runId: bystander })).toEqual([]);
    expect((await metrics.render()).body).toMatch(/buildfleet_killswitch_trips_total\{[^}]*scope="fleet"[^}]*cause="upstream"[^}]*\} 1/);

    const reset = await admin('POST', { mode: 'read_write', scope: 'all', reason: 'upstream repaired' });
    expect(reset).toMatchObject({ mode: 'read_write', scopes: [] });
    expect(await callTool(bystander, 'write_file', { path: 'late.html', content: '<p>late</p>' })).toMatchObject({ is_error: false });
  });
});

describe('an upstream spike from two tenants', () => {
  it('stops the writes of runs that read from that upstream, and no others', async () => {
    const catalog = `${upstream.origin}/fault/graphql_errors`;
    // tenant-h's run read the upstream just before; tenant-i's run never did.
    const reader = await newRun('tenant-h');
    expect(await callTool(reader, 'fetch_url_live', { url: `${upstream.origin}/valid/html` })).toMatchObject({ is_error: false });
    const other = await newRun('tenant-i');
    const spikers = await Promise.all(['tenant-f', 'tenant-g'].map((tenant) => newRun(tenant)));
    for (let round = 0; round < 10; round += 1) {
      for (const runId of spikers) await callTool(runId, 'fetch_url_live', { url: catalog });
    }
    const state = await admin('GET');
    expect(state.mode).toBe('read_write');
    const host = new URL(upstream.origin).host;
    expect(state.scopes).toContainEqual(expect.objectContaining({ scope: `upstream:fetch_url_live:${host}`, kind: 'upstream', tool: 'fetch_url_live', host, mode: 'read_only' }));

    const refused = await callTool(reader, 'write_file', { path: 'a.html', content: 'a' });
    expect(refused).toMatchObject({ is_error: true, error_code: 'killswitch_read_only' });
    expect(refused.content).toContain(`upstream fetch_url_live at ${host}`);
    expect(await callTool(other, 'write_file', { path: 'a.html', content: 'a' })).toMatchObject({ is_error: false });

    await admin('POST', { mode: 'read_write', scope: `upstream:fetch_url_live:${host}` });
    expect(await callTool(reader, 'write_file', { path: 'a.html', content: 'a' })).toMatchObject({ is_error: false });
    await admin('POST', { mode: 'read_write', scope: 'all' });
  });
});

describe("the fleet's own sites origin", () => {
  it('is no shared upstream: two tenants fetching their own SVGs trip their own scopes, and a run that checked its own site keeps writing', async () => {
    // A run of tenant-l checks its own deployment on the sites origin, validly.
    const reader = await newRun('tenant-l');
    await callTool(reader, 'write_file', { path: 'index.html', content: '<!doctype html><title>L</title><p>L</p>' });
    const readerSite = (await callTool(reader, 'deploy', {})).output as { url: string };
    expect(await callTool(reader, 'fetch_url_live', { url: readerSite.url })).toMatchObject({ is_error: false });
    // tenant-j and tenant-k each fetch their own SVG as a page, 22 times.
    const spikers = await Promise.all(
      ['tenant-j', 'tenant-k'].map(async (tenant) => {
        const runId = await newRun(tenant);
        await callTool(runId, 'write_file', { path: 'logo.svg', content: UPSTREAM_SVG });
        const site = (await callTool(runId, 'deploy', {})).output as { url: string };
        return { runId, url: `${site.url}logo.svg` };
      }),
    );
    for (let round = 0; round < 22; round += 1) {
      for (const { runId, url } of spikers) await callTool(runId, 'fetch_url_live', { url });
    }
    const state = await admin('GET');
    expect(state.mode).toBe('read_write');
    expect(state.scopes.map((scope: { scope: string }) => scope.scope)).toEqual(['tenant:tenant-j', 'tenant:tenant-k']);
    // The run that read the sites origin writes; the spiking tenants' next runs do not.
    expect(await callTool(reader, 'write_file', { path: 'more.html', content: '<p>more</p>' })).toMatchObject({ is_error: false });
    const refused = await callTool(await newRun('tenant-j'), 'write_file', { path: 'x.html', content: 'x' });
    expect(refused).toMatchObject({ error_code: 'killswitch_read_only' });
    expect(refused.content).toContain('The kill switch of tenant "tenant-j"');
    await admin('POST', { mode: 'read_write', scope: 'all' });
  });
});

describe('check_broken_images over a page with a huge image reference', () => {
  it('returns a valid, bounded output: nothing for the kill switch to count as invalid', async () => {
    const runId = await newRun('tenant-m');
    await callTool(runId, 'write_file', { path: 'index.html', content: `<img src="${'y'.repeat(200_001)}">` });
    const deployed = (await callTool(runId, 'deploy', {})).output as { deploy_id: string };
    const result = await callTool(runId, 'check_broken_images', { deploy_id: deployed.deploy_id });
    expect(result).toMatchObject({ is_error: false, output: { checked: 1, broken: [expect.objectContaining({ src: expect.stringMatching(/^y{300}…\[\+199701 characters\]$/) })] } });
    expect((await events(runId)).filter((event) => event.event === 'tool-output-reject' && event.ok === false)).toEqual([]);
  });
});
