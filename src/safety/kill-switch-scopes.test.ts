// The scoped kill switch on real Redis: which scope each kind of spike trips, what each scope
// refuses, resets, half-open per scope, and what an operator reads.
import { scanKeys } from '../redis/redis-scan.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisClient } from '../redis/redis-connection.js';
import { connectTestRedis, deletePrefix, uniquePrefix } from '../../test/support/redis.js';
import { createKeySpace, killSwitchScopesKey, MAX_RUN_UPSTREAMS, RUN_READ_EVERY_UPSTREAM, RunEngine } from '../engine/index.js';
import { luaCommandsOnKeys } from '../../test/support/lua-key-commands.js';
import { KillSwitch, describeRefusal, type KillSwitchSettings } from './kill-switch.js';
import type { KillSwitchScopeKind } from './kill-switch-scope.js';
import { parseScopeId, upstreamOf } from './kill-switch-scope.js';

let redis: RedisClient;
const prefixes: string[] = [];

beforeAll(() => {
  redis = connectTestRedis();
});
afterAll(async () => {
  for (const prefix of prefixes) await deletePrefix(redis, prefix);
  await redis.quit();
});

const trips: Array<{ scope: KillSwitchScopeKind; cause: string }> = [];

/** The engine of the last switch newSwitch made: it keeps the upstreams each run depends on. */
let engine: RunEngine;

function newSwitch(settings: Partial<KillSwitchSettings> = {}): KillSwitch {
  const prefix = uniquePrefix('ksscopes');
  prefixes.push(prefix);
  const keys = createKeySpace(prefix);
  engine = new RunEngine(redis, keys);
  return new KillSwitch({
    redis,
    keys,
    runUpstreams: engine,
    // The defaults of src/config.ts.
    settings: { threshold: 0.25, minVolume: 20, windowMs: 60_000, cooldownMs: 0, fleetMinTenants: 3, upstreamMinTenants: 2, ...settings },
    hooks: { onKillSwitchTrip: (scope, cause) => trips.push({ scope, cause }) },
  });
}

/** The fleet's own sites origin in these tests (the tools' publicBaseUrl). */
const SITES = 'https://sites.example';

/** One output of a tenant's run from a URL (or, without one, of a fleet's own tool). */
async function output(killSwitch: KillSwitch, { tenant, run = `run_${tenant}`, tool = 'fetch_url_live', url, valid }: { tenant: string; run?: string; tool?: string; url?: string; valid: boolean }) {
  return killSwitch.recordOutcome({
    tool,
    valid,
    ...(valid ? {} : { reason: 'unexpected_content_type:image/svg+xml' }),
    runId: run,
    tenant,
    upstream: upstreamOf({ tool, input: url === undefined ? {} : { url }, sitesBaseUrl: SITES }),
  });
}

async function repeat(times: number, step: () => Promise<unknown>) {
  for (let index = 0; index < times; index += 1) await step();
}

const write = (tenant: string, run = `run_${tenant}`, url?: string) => ({
  runId: run,
  tenant,
  upstream: upstreamOf({ tool: url ? 'fetch_image' : 'write_file', input: url ? { url } : {}, sitesBaseUrl: SITES }),
});

describe('scopes', () => {
  it('parses the ids it lists and names the upstream of a call', () => {
    expect(parseScopeId('fleet')).toEqual({ kind: 'fleet' });
    expect(parseScopeId('tenant:acme-1')).toEqual({ kind: 'tenant', tenant: 'acme-1' });
    expect(parseScopeId('upstream:fetch_url_live:[::1]:8080')).toEqual({ kind: 'upstream', tool: 'fetch_url_live', host: '[::1]:8080' });
    for (const bad of ['', 'tenant:', 'tenant:a:b', 'upstream:fetch_url_live', 'upstream:Bad:x', 'upstream:t:a b', 'galaxy']) expect(parseScopeId(bad), bad).toBeNull();
    const sitesBaseUrl = 'http://127.0.0.1:8090/';
    expect(upstreamOf({ tool: 'fetch_image', input: { url: 'https://CDN.Example.com:443/a.png' }, sitesBaseUrl })).toEqual({ tool: 'fetch_image', host: 'cdn.example.com' });
    expect(upstreamOf({ tool: 'fetch_url_live', input: { url: 'http://127.0.0.1:8081/x' }, sitesBaseUrl })).toEqual({ tool: 'fetch_url_live', host: '127.0.0.1:8081' });
    expect(upstreamOf({ tool: 'fetch_url_live', input: { url: 'not a url' }, sitesBaseUrl })).toEqual({ tool: 'fetch_url_live', host: '(invalid-url)' });
    expect(upstreamOf({ tool: 'write_file', input: { path: 'a.html' }, sitesBaseUrl })).toEqual({ tool: 'write_file', host: null });
    // The fleet's own sites origin (scheme, host and port) is no shared upstream, whatever the path.
    for (const url of ['http://127.0.0.1:8090/sites/run_a/d/dep_1/logo.svg', 'HTTP://127.0.0.1:8090/anything']) {
      expect(upstreamOf({ tool: 'fetch_url_live', input: { url }, sitesBaseUrl }), url).toEqual({ tool: 'fetch_url_live', host: null, ownSite: true });
    }
    for (const url of ['https://127.0.0.1:8090/sites/', 'http://127.0.0.1:8091/sites/', 'http://localhost:8090/sites/']) {
      expect(upstreamOf({ tool: 'screenshot', input: { url }, sitesBaseUrl }).host, url).not.toBeNull();
    }
  });
});

describe('a spike confined to one tenant', () => {
  it('trips that tenant alone; other tenants, even on the same sites origin, keep writing', async () => {
    const killSwitch = newSwitch();
    const shared = `${SITES}/sites/run_b/d/dep_1/logo.svg`;
    // Tenant a reads the same origin, validly; tenant b fetches its own SVG as a page, 24 times.
    await repeat(10, () => output(killSwitch, { tenant: 'a', url: 'https://sites.example/sites/run_a/d/dep_2/', valid: true }));
    const outcomes = [];
    for (let index = 0; index < 24; index += 1) outcomes.push(await output(killSwitch, { tenant: 'b', url: shared, valid: false }));
    const tripIndex = outcomes.findIndex((outcome) => outcome.changes.length > 0);
    expect(tripIndex).toBe(19);
    expect(outcomes[19]?.changes).toEqual([
      expect.objectContaining({ scope: { kind: 'tenant', tenant: 'b' }, scopeId: 'tenant:b', outcome: 'tripped', mode: 'read_only', cause: 'volume', window: { total: 20, invalid: 20, rate: 1 } }),
    ]);
    expect(outcomes[19]?.outcome).toBe('recorded');

    const state = await killSwitch.getState();
    expect(state.mode).toBe('read_write');
    expect(state.scopes.map((scope) => scope.scopeId)).toEqual(['tenant:b']);
    expect(state.scopes[0]).toMatchObject({ mode: 'read_only', source: 'auto', window: { total: 24, invalid: 24 }, lastTrip: { total: 20, invalid: 20, tool: 'fetch_url_live', cause: 'volume' } });
    expect(state.scopes[0]?.reason).toContain('20 of 20 tool outputs of tenant b invalid');
    expect(state.recentTrips).toEqual([expect.objectContaining({ scopeId: 'tenant:b', cause: 'volume', runId: 'run_b', total: 20, invalid: 20 })]);

    // Tenant a writes, on a run that read the shared upstream; tenant b does not, on any run.
    expect(await killSwitch.claimWrite(write('a'))).toMatchObject({ verdict: 'allow' });
    const refused = await killSwitch.claimWrite(write('b', 'run_b_next'));
    expect(refused).toMatchObject({ verdict: 'refuse', mode: 'read_only', scopeId: 'tenant:b', scope: { kind: 'tenant', tenant: 'b' } });
    if (refused.verdict !== 'refuse') throw new Error('expected a refusal');
    expect(describeRefusal(refused)).toMatch(/^The kill switch of tenant "b" is read_only \(20 of 20 tool outputs of tenant b invalid/);
    expect(await killSwitch.countScopes()).toEqual([{ scope: 'tenant', mode: 'read_only', count: 1 }]);
  });

  it('is reset by an operator: the tenant writes again and its old outputs no longer count', async () => {
    const killSwitch = newSwitch();
    await repeat(20, () => output(killSwitch, { tenant: 'b', url: 'https://b.example/x.svg', valid: false }));
    expect((await killSwitch.claimWrite(write('b'))).verdict).toBe('refuse');
    const reset = await killSwitch.setMode({ mode: 'read_write', reason: 'tenant b fixed its site', scope: { kind: 'tenant', tenant: 'b' } });
    expect(reset.scopes).toEqual([]);
    expect((await killSwitch.claimWrite(write('b'))).verdict).toBe('allow');
    // One more invalid output: the window restarted at the reset, so no re-trip; it trips again
    // on exactly the 20th output after the reset (the reset is exact to the ms, not to its bucket).
    expect((await output(killSwitch, { tenant: 'b', url: 'https://b.example/x.svg', valid: false })).changes).toEqual([]);
    const again = [];
    for (let index = 0; index < 19; index += 1) again.push(await output(killSwitch, { tenant: 'b', url: 'https://b.example/x.svg', valid: false }));
    expect(again.findIndex((record) => record.changes.length > 0)).toBe(18);
    expect(again[18]?.changes[0]).toMatchObject({ scopeId: 'tenant:b', window: { total: 20, invalid: 20 } });
    await killSwitch.setMode({ mode: 'read_write', reason: 'tenant b fixed it again', scope: { kind: 'tenant', tenant: 'b' } });
    // And an operator can stop one tenant by hand (never half-opens by itself).
    const stopped = await killSwitch.setMode({ mode: 'read_only', reason: 'abuse report 12', scope: { kind: 'tenant', tenant: 'c' } });
    expect(stopped.scopes).toEqual([expect.objectContaining({ scopeId: 'tenant:c', mode: 'read_only', source: 'operator', reason: 'abuse report 12' })]);
    expect(await killSwitch.claimWrite(write('c'))).toMatchObject({ verdict: 'refuse', scopeId: 'tenant:c', reason: 'abuse report 12' });
    expect((await killSwitch.claimWrite(write('b'))).verdict).toBe('allow');
  });

  it('half-opens after the cool-down and closes on a valid probe output of that tenant', async () => {
    const killSwitch = newSwitch({ minVolume: 2, threshold: 0.5, cooldownMs: 300 });
    await repeat(2, () => output(killSwitch, { tenant: 'b', url: 'https://b.example/x.svg', valid: false }));
    expect((await killSwitch.claimWrite(write('b'))).verdict).toBe('refuse');
    await new Promise((resolve) => setTimeout(resolve, 350));
    const probe = await killSwitch.claimWrite(write('b'));
    if (probe.verdict !== 'probe') throw new Error(`expected a probe, got ${probe.verdict}`);
    expect(await killSwitch.claimWrite(write('b', 'run_b_2'))).toMatchObject({ verdict: 'refuse', mode: 'half_open', scopeId: 'tenant:b' });
    // Another tenant is not held back by b's probe.
    expect((await killSwitch.claimWrite(write('a'))).verdict).toBe('allow');
    const closed = await killSwitch.recordOutcome({ tool: 'write_file', valid: true, probeToken: probe.probeToken, ...write('b') });
    expect(closed.changes).toEqual([expect.objectContaining({ scopeId: 'tenant:b', outcome: 'probe_closed', mode: 'read_write' })]);
    expect((await killSwitch.getState()).scopes).toEqual([]);
    expect((await killSwitch.claimWrite(write('b', 'run_b_3'))).verdict).toBe('allow');
  });
});

describe('a spike from one upstream', () => {
  it('is not an upstream spike while one tenant alone makes it', async () => {
    const killSwitch = newSwitch({ upstreamMinTenants: 2 });
    // Tenant a reads cdn validly and fails once; tenant b fails on it 30 times.
    await repeat(10, () => output(killSwitch, { tenant: 'a', url: 'https://cdn.example/a.png', valid: true }));
    await output(killSwitch, { tenant: 'a', url: 'https://cdn.example/broken.png', valid: false });
    await repeat(30, () => output(killSwitch, { tenant: 'b', url: 'https://cdn.example/junk', valid: false }));
    const state = await killSwitch.getState();
    expect(state.scopes.map((scope) => scope.scopeId)).toEqual(['tenant:b']);
    expect((await killSwitch.claimWrite(write('a'))).verdict).toBe('allow');
  });

  it('flips the writes that depend on it when two tenants spike on it: their runs, and writes from it', async () => {
    const killSwitch = newSwitch();
    const broken = 'https://api.example/catalog.json';
    // Tenant c read the upstream an instant before it broke; tenant d never touched it.
    await output(killSwitch, { tenant: 'c', url: 'https://api.example/ok.json', valid: true });
    // Tenants a and b each see it fail: 22 outputs, both spiking on it, two tenants failing.
    let trip = null;
    for (let index = 0; index < 11 && !trip; index += 1) {
      for (const tenant of ['a', 'b']) {
        const record = await output(killSwitch, { tenant, url: broken, valid: false });
        trip ??= record.changes.find((change) => change.scope.kind === 'upstream') ?? null;
      }
    }
    expect(trip).toMatchObject({ scopeId: 'upstream:fetch_url_live:api.example', outcome: 'tripped', cause: 'tenants', tenants: 2, mode: 'read_only' });
    expect(trip?.reason).toContain('of fetch_url_live:api.example invalid');

    const state = await killSwitch.getState();
    expect(state.mode).toBe('read_write');
    expect(state.scopes.map((scope) => scope.scopeId)).toContain('upstream:fetch_url_live:api.example');
    // c's run read from it: its writes are refused, naming the upstream.
    const refused = await killSwitch.claimWrite(write('c'));
    expect(refused).toMatchObject({ verdict: 'refuse', scopeId: 'upstream:fetch_url_live:api.example' });
    if (refused.verdict !== 'refuse') throw new Error('expected a refusal');
    expect(describeRefusal(refused)).toContain('The kill switch of upstream fetch_url_live at api.example (this run read from it) is read_only');
    // d writes; c's other run writes too.
    expect((await killSwitch.claimWrite(write('d'))).verdict).toBe('allow');
    expect((await killSwitch.claimWrite(write('c', 'run_c_other'))).verdict).toBe('allow');
    // An upstream scope is its tool's: fetch_image from the same host is another upstream.
    expect((await killSwitch.claimWrite(write('d', 'run_d', 'https://api.example/logo.png'))).verdict).toBe('allow');
    expect(await killSwitch.countScopes()).toEqual(expect.arrayContaining([{ scope: 'upstream', mode: 'read_only', count: 1 }]));
  });

  it("lets a write tool's own fetch through a tripped upstream; once its output is recorded, the run depends on it", async () => {
    const killSwitch = newSwitch();
    const cdn = { kind: 'upstream', tool: 'fetch_image', host: 'cdn.example' } as const;
    await killSwitch.setMode({ mode: 'read_only', reason: 'cdn serves junk', scope: cdn });
    // fetch_image validates what it fetched before it writes: its claim is not the upstream's.
    expect((await killSwitch.claimWrite(write('d', 'run_d', 'https://cdn.example/a.png'))).verdict).toBe('allow');
    await output(killSwitch, { tenant: 'd', run: 'run_d', tool: 'fetch_image', url: 'https://cdn.example/a.png', valid: false });
    expect(await killSwitch.claimWrite(write('d', 'run_d'))).toMatchObject({ verdict: 'refuse', scopeId: 'upstream:fetch_image:cdn.example' });
    expect((await killSwitch.claimWrite(write('d', 'run_d_other'))).verdict).toBe('allow');
  });

  it('becomes fleet-wide when the spike spreads to more tenants after the upstream tripped', async () => {
    const killSwitch = newSwitch();
    const url = 'https://cdn.example/p.png';
    // Two tenants: the upstream trips, not the fleet.
    let upstreamTrip = null;
    for (let index = 0; index < 10 && !upstreamTrip; index += 1) {
      for (const tenant of ['a', 'b']) {
        const record = await output(killSwitch, { tenant, tool: 'fetch_image', url, valid: false });
        upstreamTrip ??= record.changes.find((change) => change.scope.kind === 'upstream') ?? null;
      }
    }
    expect(upstreamTrip).toMatchObject({ scopeId: 'upstream:fetch_image:cdn.example', tenants: 2 });
    expect((await killSwitch.getState()).mode).toBe('read_write');
    // A third tenant's fresh run fetches from it and fails too: now it is fleet-wide.
    const spread = await output(killSwitch, { tenant: 'c', tool: 'fetch_image', url, valid: false });
    expect(spread.changes).toEqual([expect.objectContaining({ scopeId: 'fleet', cause: 'upstream', tenants: 3 })]);
    expect((await killSwitch.claimWrite(write('e'))).verdict).toBe('refuse');
  });
});

describe('a fleet-wide spike', () => {
  it('trips the fleet when one upstream fails for several tenants', async () => {
    const killSwitch = newSwitch();
    const before = trips.length;
    let fleetTrip = null;
    for (let index = 0; index < 10 && !fleetTrip; index += 1) {
      for (const tenant of ['a', 'b', 'c']) {
        const record = await output(killSwitch, { tenant, tool: 'fetch_image', url: 'https://cdn.example/p.png', valid: false });
        fleetTrip ??= record.changes.find((change) => change.scope.kind === 'fleet') ?? null;
      }
    }
    expect(fleetTrip).toMatchObject({ outcome: 'tripped', cause: 'upstream', tenants: 3, window: { total: 20, invalid: 20 } });
    const state = await killSwitch.getState();
    expect(state).toMatchObject({ mode: 'read_only', source: 'auto', lastTrip: { cause: 'upstream', tenants: 3, tool: 'fetch_image' } });
    // The fleet tripped first, so no narrower scope did; every write stops, any tenant's.
    expect(state.scopes.map((scope) => scope.scopeId)).toEqual(['fleet']);
    expect(await killSwitch.claimWrite(write('zz-new-tenant'))).toMatchObject({ verdict: 'refuse', scopeId: 'fleet' });
    expect(trips.slice(before)).toEqual([{ scope: 'fleet', cause: 'upstream' }]);
  });

  it('trips the fleet when several tenants spike at once, on different upstreams', async () => {
    const killSwitch = newSwitch();
    // Each tenant reaches its own trip level (20 outputs, all invalid) on its own upstream: the
    // first two trip their scopes, the third makes three spiking tenants, which trips the fleet.
    let fleetTrip = null;
    for (let index = 0; index < 20 && !fleetTrip; index += 1) {
      for (const tenant of ['a', 'b', 'c']) {
        const record = await output(killSwitch, { tenant, url: `https://${tenant}.example/page`, valid: false });
        fleetTrip ??= record.changes.find((change) => change.scope.kind === 'fleet') ?? null;
      }
    }
    expect(fleetTrip).toMatchObject({ cause: 'tenants', tenants: 3, window: { total: 60, invalid: 60 } });
    expect((await killSwitch.getState()).scopes.map((scope) => scope.scopeId)).toEqual(['fleet', 'tenant:a', 'tenant:b']);
    expect((await killSwitch.claimWrite(write('d'))).verdict).toBe('refuse');
  });

  it('does not count a tenant toward the fleet before its own outputs reach the volume', async () => {
    const killSwitch = newSwitch();
    // One tenant's big spike keeps the fleet window over the threshold; three tenants whose first
    // output fails are not "several tenants spiking".
    await repeat(24, () => output(killSwitch, { tenant: 'b', url: 'https://b.example/x', valid: false }));
    for (const tenant of ['c', 'd', 'e']) await output(killSwitch, { tenant, url: `https://${tenant}.example/y`, valid: false });
    const state = await killSwitch.getState();
    expect(state.mode).toBe('read_write');
    expect(state.spikingTenants).toBe(1);
  });

  it("trips the fleet when enough tenants spike on one of the fleet's own tools", async () => {
    const killSwitch = newSwitch();
    let fleetTrip = null;
    for (let index = 0; index < 10 && !fleetTrip; index += 1) {
      for (const tenant of ['a', 'b', 'c']) {
        const record = await output(killSwitch, { tenant, tool: 'list_files', valid: false });
        fleetTrip ??= record.changes.find((change) => change.scope.kind === 'fleet') ?? null;
      }
    }
    expect(fleetTrip).toMatchObject({ cause: 'own_tool', tenants: 3, window: { total: 20, invalid: 20 } });
    expect(fleetTrip?.reason).toContain("from the fleet's own tool list_files, spiking for 3 tenants");
    expect((await killSwitch.getState()).lastTrip).toMatchObject({ cause: 'own_tool', tenants: 3, tool: 'list_files' });
    expect((await killSwitch.claimWrite(write('d'))).verdict).toBe('refuse');
  });

  it('trips the fleet on any spike with fleetMinTenants = 1, as before the switch had scopes', async () => {
    const killSwitch = newSwitch({ fleetMinTenants: 1 });
    const outcomes = [];
    for (let index = 0; index < 20; index += 1) outcomes.push(await output(killSwitch, { tenant: 'a', tool: 'check_broken_images', valid: false }));
    expect(outcomes[19]?.changes).toEqual([expect.objectContaining({ scopeId: 'fleet', cause: 'own_tool', tenants: 1 })]);
    expect((await killSwitch.claimWrite(write('b'))).verdict).toBe('refuse');
  });

  it('a fleet reset forgets the spike in every scope, and resetAll clears every tripped scope', async () => {
    const killSwitch = newSwitch({ fleetMinTenants: 2, minVolume: 10 });
    // b trips alone first; then a spikes too, which trips the fleet; a goes on failing.
    await repeat(10, () => output(killSwitch, { tenant: 'b', url: 'https://b.example/x', valid: false }));
    for (let index = 0; index < 10; index += 1) {
      for (const tenant of ['a', 'c']) await output(killSwitch, { tenant, url: `https://${tenant}.example/y`, valid: false });
    }
    const tripped = await killSwitch.getState();
    expect(tripped.scopes.map((scope) => scope.scopeId)).toEqual(['fleet', 'tenant:b']);
    await killSwitch.setMode({ mode: 'read_write', reason: 'fleet fixed' });
    // a's window holds 10 invalid of 10, enough to trip it: after the fleet reset they no longer count.
    expect((await output(killSwitch, { tenant: 'a', url: 'https://a.example/y', valid: false })).changes).toEqual([]);
    expect((await killSwitch.getState()).scopes.map((scope) => scope.scopeId)).toEqual(['tenant:b']);
    const cleared = await killSwitch.resetAll({ reason: 'incident over' });
    expect(cleared.scopes).toEqual([]);
    expect((await killSwitch.claimWrite(write('b'))).verdict).toBe('allow');
  });
});

describe("a spike on one of the fleet's own tools", () => {
  it('from one tenant, or two, trips their own scopes and never the fleet', async () => {
    const killSwitch = newSwitch();
    // check_broken_images over a page a tenant wrote: its output can be made invalid at will.
    const outcomes = [];
    for (let index = 0; index < 24; index += 1) outcomes.push(await output(killSwitch, { tenant: 'a', tool: 'check_broken_images', valid: false }));
    expect(outcomes.findIndex((outcome) => outcome.changes.length > 0)).toBe(19);
    expect(outcomes[19]?.changes).toEqual([expect.objectContaining({ scopeId: 'tenant:a', cause: 'volume' })]);
    // A second tenant does the same: still its own scope alone (a fleet trip needs three).
    await repeat(24, () => output(killSwitch, { tenant: 'b', tool: 'check_broken_images', valid: false }));
    const state = await killSwitch.getState();
    expect(state.mode).toBe('read_write');
    expect(state.scopes.map((scope) => scope.scopeId)).toEqual(['tenant:a', 'tenant:b']);
    expect((await killSwitch.claimWrite(write('c'))).verdict).toBe('allow');
    expect(await killSwitch.claimWrite(write('a'))).toMatchObject({ verdict: 'refuse', scopeId: 'tenant:a' });
  });
});

describe("the fleet's own sites origin", () => {
  it('is no shared upstream: tenants failing on their own sites trip their own scopes, not the origin nor the fleet', async () => {
    const killSwitch = newSwitch();
    // Tenant a checks its own deployment there, validly.
    await output(killSwitch, { tenant: 'a', url: `${SITES}/sites/run_a/d/dep_1/`, valid: true });
    // Tenants b and c fetch their own SVGs as pages, 24 times each; tenant d fails there once.
    for (let index = 0; index < 24; index += 1) {
      for (const tenant of ['b', 'c']) await output(killSwitch, { tenant, url: `${SITES}/sites/run_${tenant}/d/dep_1/logo.svg`, valid: false });
    }
    expect((await output(killSwitch, { tenant: 'd', url: `${SITES}/sites/run_d/d/dep_1/missing.svg`, valid: false })).changes).toEqual([]);

    const state = await killSwitch.getState();
    expect(state.mode).toBe('read_write');
    expect(state.scopes.map((scope) => scope.scopeId)).toEqual(['tenant:b', 'tenant:c']);
    expect(state.recentTrips.map((trip) => trip.scopeId).sort()).toEqual(['tenant:b', 'tenant:c']);
    // The run of a that read the origin writes; so does d's.
    expect((await killSwitch.claimWrite(write('a'))).verdict).toBe('allow');
    expect((await killSwitch.claimWrite(write('d'))).verdict).toBe('allow');
    // Nothing was windowed as an upstream of the origin, and no run depends on it.
    // Every primary's keys: KEYS would read one node of a cluster, and find nothing anywhere else.
    const keys: string[] = [];
    for await (const page of scanKeys(redis, `${prefixes.at(-1)}:*`)) keys.push(...page);
    expect(keys.filter((key) => key.includes('sites.example'))).toEqual([]);
    expect(keys.filter((key) => key.endsWith(':upstreams'))).toEqual([]);
  });

  it('still counts toward a fleet-wide spike when enough tenants spike each at its own level', async () => {
    const killSwitch = newSwitch();
    let fleetTrip = null;
    for (let index = 0; index < 20 && !fleetTrip; index += 1) {
      for (const tenant of ['b', 'c', 'd']) {
        const record = await output(killSwitch, { tenant, url: `${SITES}/sites/run_${tenant}/d/dep_1/logo.svg`, valid: false });
        fleetTrip ??= record.changes.find((change) => change.scope.kind === 'fleet') ?? null;
      }
    }
    expect(fleetTrip).toMatchObject({ cause: 'tenants', tenants: 3 });
  });
});

describe("the cost of a write's scope check", () => {
  const host = (index: number) => `https://h${index}.example/page`;

  // MONITOR counts one server's commands (luaCommandsOnKeys).
  it.skipIf(process.env.BUILDFLEET_REDIS_CLUSTER_NODES)("does not grow with the hosts a run read: the claim walks the tripped scopes when they are fewer", async () => {
    const killSwitch = newSwitch();
    const keys = createKeySpace(prefixes.at(-1) as string);
    for (let index = 0; index < 200; index += 1) await output(killSwitch, { tenant: 'a', run: 'run_wide', url: host(index), valid: true });
    const scopesKey = killSwitchScopesKey(keys);
    // The scopes hash, and every key of the run (the engine reads the run's upstreams zset).
    const watched = [scopesKey, { prefix: `${keys.run('run_wide')}:` }];

    const allowed = await luaCommandsOnKeys(redis, watched, async () => expect((await killSwitch.claimWrite(write('a', 'run_wide'))).verdict).toBe('allow'));
    await killSwitch.setMode({ mode: 'read_only', reason: 'h150 serves junk', scope: { kind: 'upstream', tool: 'fetch_url_live', host: 'h150.example' } });
    const refused = await luaCommandsOnKeys(redis, watched, async () =>
      expect(await killSwitch.claimWrite(write('a', 'run_wide'))).toMatchObject({ verdict: 'refuse', scopeId: 'upstream:fetch_url_live:h150.example' }),
    );
    // A handful of commands each (the run's live upstreams read once, the tenant entry, the size of
    // the scopes hash, their ids and one HGET per tripped upstream), where walking the run's 200
    // upstreams took 200 HGETs.
    expect(allowed).toContainEqual(['HLEN', scopesKey]);
    expect(allowed.length, JSON.stringify(allowed)).toBeLessThanOrEqual(6);
    expect(refused).toContainEqual(['HGET', scopesKey, 'upstream:fetch_url_live:h150.example']);
    expect(refused.length, JSON.stringify(refused)).toBeLessThanOrEqual(8);
    // A run that read one host walks its one upstream, however many scopes are tripped.
    await output(killSwitch, { tenant: 'a', run: 'run_narrow', url: host(1), valid: true });
    for (let index = 0; index < 5; index += 1) await killSwitch.setMode({ mode: 'read_only', reason: 'test', scope: { kind: 'upstream', tool: 'fetch_url_live', host: `other${index}.example` } });
    expect((await killSwitch.claimWrite(write('a', 'run_narrow'))).verdict).toBe('allow');
  });

  // MONITOR counts one server's commands (luaCommandsOnKeys).
  it.skipIf(process.env.BUILDFLEET_REDIS_CLUSTER_NODES)('judges the upstreams a tool job loaded with its run without reading the run again', async () => {
    const killSwitch = newSwitch();
    const keys = createKeySpace(prefixes.at(-1) as string);
    await output(killSwitch, { tenant: 'a', run: 'run_loaded', url: host(1), valid: true });
    const liveUpstreams = await engine.liveUpstreamsOf('run_loaded');
    expect(liveUpstreams).toEqual(['upstream:fetch_url_live:h1.example']);
    await killSwitch.setMode({ mode: 'read_only', reason: 'h1 serves junk', scope: { kind: 'upstream', tool: 'fetch_url_live', host: 'h1.example' } });
    const onRunKeys = await luaCommandsOnKeys(redis, [{ prefix: `${keys.run('run_loaded')}:` }], async () =>
      expect(await killSwitch.claimWrite({ ...write('a', 'run_loaded'), liveUpstreams })).toMatchObject({ verdict: 'refuse', scopeId: 'upstream:fetch_url_live:h1.example' }),
    );
    expect(onRunKeys).toEqual([]);
    // Without them, the claim asks the engine: the same verdict.
    expect(await killSwitch.claimWrite(write('a', 'run_loaded'))).toMatchObject({ verdict: 'refuse', scopeId: 'upstream:fetch_url_live:h1.example' });
  });

  it(`makes a run that read more than ${MAX_RUN_UPSTREAMS} hosts within a window depend on every upstream`, async () => {
    const killSwitch = newSwitch();
    for (let index = 0; index < MAX_RUN_UPSTREAMS; index += 1) await output(killSwitch, { tenant: 'a', run: 'run_wide', url: host(index), valid: true });
    expect(await engine.liveUpstreamsOf('run_wide')).toHaveLength(MAX_RUN_UPSTREAMS);
    const elsewhere = { kind: 'upstream', tool: 'fetch_url_live', host: 'never-read.example' } as const;
    await killSwitch.setMode({ mode: 'read_only', reason: 'test', scope: elsewhere });
    // Up to the cap, only the upstreams it read cover its writes.
    expect((await killSwitch.claimWrite(write('a', 'run_wide'))).verdict).toBe('allow');
    // One host more: its upstreams collapse into "every upstream", and the tripped one covers it.
    await output(killSwitch, { tenant: 'a', run: 'run_wide', url: host(MAX_RUN_UPSTREAMS), valid: true });
    expect(await engine.liveUpstreamsOf('run_wide')).toEqual([RUN_READ_EVERY_UPSTREAM]);
    expect(await killSwitch.claimWrite(write('a', 'run_wide'))).toMatchObject({ verdict: 'refuse', scopeId: 'upstream:fetch_url_live:never-read.example' });
    expect((await killSwitch.claimWrite(write('a', 'run_other'))).verdict).toBe('allow');
    await killSwitch.setMode({ mode: 'read_write', reason: 'test over', scope: elsewhere });
    expect((await killSwitch.claimWrite(write('a', 'run_wide'))).verdict).toBe('allow');
  });
});
