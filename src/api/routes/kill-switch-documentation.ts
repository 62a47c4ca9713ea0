// The kill switch routes come from a plugin (kill-switch-routes.ts) that validates its
// own body and declares no schema. This onRoute hook gives them what every route of the API has:
// an OpenAPI entry and a declared access (`admin`), so they are documented and guarded like the
// routes defined with defineRoute.
import type { RouteOptions } from 'fastify';
import { KILL_SWITCH_ROUTE } from './kill-switch-routes.js';
import type { ApiErrorCode } from '../api-errors.js';
import type { RouteDocumentation } from '../define-route.js';

const COMMON_ERRORS: ApiErrorCode[] = ['unauthorized', 'forbidden', 'duplicate_authorization', 'shutting_down', 'internal_error'];

const byMethod: Record<string, { operationId: string; summary: string; description: string; documentation: RouteDocumentation }> = {
  GET: {
    operationId: 'getKillSwitch',
    summary: 'Kill switch state',
    description:
      "The scoped kill switch: the fleet scope's `mode` (`read_write`, `half_open` or `read_only`), " +
      'why and since when, its sliding window of validated tool outputs, the spiking tenants and ' +
      'its last automatic trip; `scopes` lists every scope that is tripped or half-open now (`fleet`, ' +
      '`tenant:<tenant>`, `upstream:<tool>:<host>`) with its own mode, reason, window and last trip; ' +
      '`recent_trips` the last trips of any scope; and the settings. Needs the `admin` scope.',
    documentation: {
      access: 'admin',
      responses: { 200: { description: 'The kill switch state' } },
      errors: COMMON_ERRORS,
    },
  },
  POST: {
    operationId: 'setKillSwitch',
    summary: 'Set the kill switch',
    description:
      'Body `{"mode": "read_only" | "read_write", "reason"?, "scope"?}`. `scope` is a scope id as GET ' +
      'lists them: `fleet` (the default), `tenant:<tenant>`, `upstream:<tool>:<host>`, or `all` (with ' +
      '`read_write` only: the fleet and every tripped scope). `read_only` stops the writes the scope ' +
      "covers until an operator sets `read_write` again, which also restarts the scope's window. Needs the `admin` scope.",
    documentation: {
      access: 'admin',
      responses: { 200: { description: 'The kill switch state after the change' } },
      errors: ['invalid_body', 'unsupported_media_type', 'unsupported_charset', 'invalid_body_encoding', 'body_too_large', ...COMMON_ERRORS],
    },
  },
};

/** onRoute hook for the context the kill switch plugin registers its routes in. */
export function killSwitchDocumentation(routeOptions: RouteOptions): void {
  const method = Array.isArray(routeOptions.method) ? routeOptions.method[0] : routeOptions.method;
  const entry = routeOptions.url === KILL_SWITCH_ROUTE && method ? byMethod[method] : undefined;
  // HEAD routes Fastify adds for GET stay out of the document, as for every other route.
  if (!entry) return;
  routeOptions.schema = { ...routeOptions.schema, operationId: entry.operationId, summary: entry.summary, description: entry.description, tags: ['admin'] };
  routeOptions.config = { ...routeOptions.config, documentation: entry.documentation };
}
