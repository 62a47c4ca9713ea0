import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deletePrefix, testRedisUrl, uniquePrefix } from '../../../test/support/redis.js';
import { loadConfig } from '../../config.js';
import { createFleetContext, type FleetContext } from '../../fleet/fleet-context.js';
import { registerKillSwitchRoutes } from './kill-switch-routes.js';

let fleet: FleetContext;
let app: FastifyInstance;

beforeAll(async () => {
  fleet = createFleetContext(loadConfig({ REDIS_URL: testRedisUrl(), BUILDFLEET_PREFIX: uniquePrefix('ksroutes'), LOG_LEVEL: 'silent' }), 'test');
  app = Fastify();
  registerKillSwitchRoutes(app, fleet);
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await deletePrefix(fleet.redis, fleet.config.BUILDFLEET_PREFIX);
  await fleet.close();
});

describe('/v1/admin/killswitch', () => {
  it('shows read_write with an empty window at first', async () => {
    const response = await app.inject({ method: 'GET', url: '/v1/admin/killswitch' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      mode: 'read_write',
      reason: null,
      since: null,
      source: null,
      window: { total: 0, invalid: 0, rate: 0, window_ms: 60_000 },
      spiking_tenants: 0,
      last_trip: null,
      scopes: [],
      recent_trips: [],
      settings: { threshold: 0.25, min_volume: 20, window_ms: 60_000, cooldown_ms: 0, fleet_min_tenants: 3, upstream_min_tenants: 2 },
    });
  });

  it('sets read_only and back', async () => {
    const stopped = await app.inject({ method: 'POST', url: '/v1/admin/killswitch', payload: { mode: 'read_only', reason: 'incident 7' } });
    expect(stopped.statusCode).toBe(200);
    expect(stopped.json()).toMatchObject({ mode: 'read_only', reason: 'incident 7', source: 'operator', since: expect.any(String) });
    expect(stopped.json().scopes).toEqual([expect.objectContaining({ scope: 'fleet', kind: 'fleet', mode: 'read_only', reason: 'incident 7', source: 'operator' })]);
    const reset = await app.inject({ method: 'POST', url: '/v1/admin/killswitch', payload: { mode: 'read_write' } });
    expect(reset.json()).toMatchObject({ mode: 'read_write', reason: 'reset by an operator', scopes: [] });
  });

  it('sets and resets one tenant or upstream scope, and resets them all', async () => {
    const tenant = await app.inject({ method: 'POST', url: '/v1/admin/killswitch', payload: { mode: 'read_only', scope: 'tenant:acme', reason: 'abuse report' } });
    expect(tenant.statusCode).toBe(200);
    expect(tenant.json()).toMatchObject({ mode: 'read_write', scopes: [{ scope: 'tenant:acme', kind: 'tenant', tenant: 'acme', mode: 'read_only', reason: 'abuse report', source: 'operator', probe_in_flight: false }] });
    const upstream = await app.inject({ method: 'POST', url: '/v1/admin/killswitch', payload: { mode: 'read_only', scope: 'upstream:fetch_image:cdn.example:8443' } });
    expect(upstream.json().scopes.map((scope: { scope: string }) => scope.scope)).toEqual(['tenant:acme', 'upstream:fetch_image:cdn.example:8443']);
    expect(upstream.json().scopes[1]).toMatchObject({ kind: 'upstream', tool: 'fetch_image', host: 'cdn.example:8443', reason: 'set read-only by an operator' });
    const one = await app.inject({ method: 'POST', url: '/v1/admin/killswitch', payload: { mode: 'read_write', scope: 'tenant:acme' } });
    expect(one.json().scopes.map((scope: { scope: string }) => scope.scope)).toEqual(['upstream:fetch_image:cdn.example:8443']);
    const all = await app.inject({ method: 'POST', url: '/v1/admin/killswitch', payload: { mode: 'read_write', scope: 'all' } });
    expect(all.json()).toMatchObject({ mode: 'read_write', scopes: [] });
  });

  it.each([
    [{ mode: 'off' }, 'body.mode'],
    [{}, 'body.mode'],
    [{ mode: 'read_only', reason: '' }, 'body.reason'],
    [{ mode: 'read_only', force: true }, 'body.force: Unknown field'],
    [[1], 'body: Required'],
    [{ mode: 'read_only', scope: 'tenant:' }, 'body.scope'],
    [{ mode: 'read_only', scope: 'galaxy' }, 'body.scope'],
    [{ mode: 'read_only', scope: 'all' }, 'body.scope'],
  ])('answers 400 invalid_body naming the field for %j', async (payload, field) => {
    const response = await app.inject({ method: 'POST', url: '/v1/admin/killswitch', payload: payload as object });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_body');
    expect(response.json().error.message).toContain(field);
  });

  it('answers 400 for a request without a body', async () => {
    const response = await app.inject({ method: 'POST', url: '/v1/admin/killswitch' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'invalid_body' } });
  });
});
