// Operator control of the scoped kill switch, as routes the API registers:
//   GET  /v1/admin/killswitch   → 200 {mode, reason, since, source, window: {total, invalid, rate,
//                                       window_ms}, spiking_tenants, last_trip, scopes: [every
//                                       tripped or half-open scope, the fleet first], recent_trips,
//                                       settings}
//   POST /v1/admin/killswitch   {mode: 'read_only' | 'read_write', reason?, scope?} → 200 the state
//                                 after the change; 400 {error: {code: 'invalid_body', message}}
//                                 naming the field when the body does not match.
// `scope` is a scope id as GET lists them: `fleet` (the default), `tenant:<tenant>`,
// `upstream:<tool>:<host>`, or `all` (read_write only: the fleet and every tripped scope).
// read_write resets the scope (and restarts its window); read_only stops the writes it covers until
// an operator resets it (a manual read_only never half-opens by itself).
// The body is validated here with zod rather than through the API's route compilers, so the
// plugin works on any Fastify instance; its errors use the API's `invalid_body` code and shape.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { FleetContext } from '../../fleet/fleet-context.js';
import { formatZodIssues } from '../../domain/format-zod-issues.js';
import { KillSwitch, type KillSwitchState, type ScopeState, type ScopeTrip } from '../../safety/kill-switch.js';
import { parseScopeId, type KillSwitchScope } from '../../safety/kill-switch-scope.js';

export const KILL_SWITCH_ROUTE = '/v1/admin/killswitch';

const scopeSchema = z
  .string()
  .max(400)
  .transform((id, context): KillSwitchScope | 'all' => {
    if (id === 'all') return 'all';
    const scope = parseScopeId(id);
    if (scope) return scope;
    context.addIssue({ code: 'custom', message: 'must be fleet, all, tenant:<tenant> or upstream:<tool>:<host>' });
    return z.NEVER;
  });

export const killSwitchBodySchema = z
  .strictObject({
    mode: z.enum(['read_only', 'read_write']),
    reason: z.string().trim().min(1).max(500).optional(),
    scope: scopeSchema.optional(),
  })
  .refine((body) => !(body.scope === 'all' && body.mode === 'read_only'), { message: 'scope "all" only resets (mode read_write)', path: ['scope'] });

function tripView(trip: ScopeTrip) {
  return { at: trip.at, total: trip.total, invalid: trip.invalid, rate: trip.rate, tool: trip.tool, reason: trip.reason, cause: trip.cause };
}

function scopeView(scope: ScopeState) {
  return {
    scope: scope.scopeId,
    ...scope.scope,
    mode: scope.mode,
    reason: scope.reason,
    since: scope.since,
    source: scope.source,
    window: { total: scope.window.total, invalid: scope.window.invalid, rate: scope.window.rate },
    probe_in_flight: scope.probeInFlight,
    last_trip: scope.lastTrip ? tripView(scope.lastTrip) : null,
  };
}

function view(state: KillSwitchState) {
  return {
    mode: state.mode,
    reason: state.reason,
    since: state.since,
    source: state.source,
    window: { total: state.window.total, invalid: state.window.invalid, rate: state.window.rate, window_ms: state.window.windowMs },
    spiking_tenants: state.spikingTenants,
    last_trip: state.lastTrip ? { ...tripView(state.lastTrip), tenants: state.lastTrip.tenants } : null,
    scopes: state.scopes.map(scopeView),
    recent_trips: state.recentTrips.map((trip) => ({
      scope: trip.scopeId,
      at: trip.at,
      total: trip.total,
      invalid: trip.invalid,
      rate: trip.rate,
      tool: trip.tool,
      reason: trip.reason,
      cause: trip.cause,
      tenants: trip.tenants,
      run_id: trip.runId,
      summary: trip.summary,
    })),
    settings: {
      threshold: state.settings.threshold,
      min_volume: state.settings.minVolume,
      window_ms: state.settings.windowMs,
      cooldown_ms: state.settings.cooldownMs,
      fleet_min_tenants: state.settings.fleetMinTenants,
      upstream_min_tenants: state.settings.upstreamMinTenants,
    },
  };
}

function invalidBody(reply: FastifyReply, message: string) {
  return reply.code(400).send({ error: { code: 'invalid_body', message } });
}

/** Registers GET and POST /v1/admin/killswitch on an app (authentication is the app's job). */
export function registerKillSwitchRoutes(app: FastifyInstance, fleet: FleetContext, killSwitch: KillSwitch = KillSwitch.forFleet(fleet)): void {
  app.get(KILL_SWITCH_ROUTE, async () => view(await killSwitch.getState()));
  app.post(KILL_SWITCH_ROUTE, async (request, reply) => {
    const body = request.body;
    if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
      return invalidBody(reply, 'body: Required: send a JSON object {mode, reason?, scope?}');
    }
    const parsed = killSwitchBodySchema.safeParse(body);
    if (!parsed.success) return invalidBody(reply, formatZodIssues({ issues: parsed.error.issues, root: 'body', limit: 5 }));
    const { mode, reason, scope = { kind: 'fleet' } } = parsed.data;
    const why = reason ?? (mode === 'read_only' ? 'set read-only by an operator' : 'reset by an operator');
    const state = scope === 'all' ? await killSwitch.resetAll({ reason: why }) : await killSwitch.setMode({ mode, reason: why, scope });
    request.log.warn({ event: 'killswitch-set', mode, reason, scope: scope === 'all' ? 'all' : scope.kind }, 'kill switch changed by an operator');
    return view(state);
  });
}
