// Operator control of the kill switch, as routes the API registers:
//   GET  /v1/admin/killswitch   → 200 {mode, reason, since, window: {total, invalid, rate, window_ms},
//                                       last_trip, settings}
//   POST /v1/admin/killswitch   {mode: 'read_only' | 'read_write', reason?} → 200 the state after
//                                 the change; 400 {error: {code: 'invalid_body', message}} naming
//                                 the field when the body does not match.
// read_write resets the switch (and clears the window); read_only stops writes fleet-wide until
// an operator resets it (a manual read_only never half-opens by itself).
// The body is validated here with zod rather than through the API's route compilers, so the
// plugin works on any Fastify instance; its errors use the API's `invalid_body` code and shape.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { FleetContext } from '../../fleet/fleet-context.js';
import { KillSwitch, type KillSwitchState } from '../../safety/kill-switch.js';

export const KILL_SWITCH_ROUTE = '/v1/admin/killswitch';

export const killSwitchBodySchema = z.strictObject({
  mode: z.enum(['read_only', 'read_write']),
  reason: z.string().trim().min(1).max(500).optional(),
});

function view(state: KillSwitchState) {
  return {
    mode: state.mode,
    reason: state.reason,
    since: state.since,
    source: state.source,
    window: { total: state.window.total, invalid: state.window.invalid, rate: state.window.rate, window_ms: state.window.windowMs },
    last_trip: state.lastTrip
      ? { at: state.lastTrip.at, total: state.lastTrip.total, invalid: state.lastTrip.invalid, rate: state.lastTrip.rate, tool: state.lastTrip.tool, reason: state.lastTrip.reason }
      : null,
    settings: {
      threshold: state.settings.threshold,
      min_volume: state.settings.minVolume,
      window_ms: state.settings.windowMs,
      cooldown_ms: state.settings.cooldownMs,
    },
  };
}

function invalidBody(reply: FastifyReply, message: string) {
  return reply.code(400).send({ error: { code: 'invalid_body', message } });
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => `body.${key}: Unknown field`).join('; ');
      const path = ['body', ...issue.path.map(String)].join('.');
      return `${path}: ${issue.message}`;
    })
    .join('; ');
}

/** Registers GET and POST /v1/admin/killswitch on an app (authentication is the app's job). */
export function registerKillSwitchRoutes(app: FastifyInstance, fleet: FleetContext, killSwitch: KillSwitch = KillSwitch.forFleet(fleet)): void {
  app.get(KILL_SWITCH_ROUTE, async () => view(await killSwitch.getState()));
  app.post(KILL_SWITCH_ROUTE, async (request, reply) => {
    const body = request.body;
    if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
      return invalidBody(reply, 'body: Required: send a JSON object {mode, reason?}');
    }
    const parsed = killSwitchBodySchema.safeParse(body);
    if (!parsed.success) return invalidBody(reply, describeIssues(parsed.error.issues));
    const { mode, reason } = parsed.data;
    const state = await killSwitch.setMode({ mode, reason: reason ?? (mode === 'read_only' ? 'set read-only by an operator' : 'reset by an operator') });
    request.log.warn({ event: 'killswitch-set', mode, reason }, 'kill switch changed by an operator');
    return view(state);
  });
}
