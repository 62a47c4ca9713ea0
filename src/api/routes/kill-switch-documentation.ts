// The kill switch routes come from a plugin (kill-switch-routes.ts) that validates its
// own body and declares no schema. This onRoute hook gives them what every route of the API has:
// an OpenAPI entry and a declared access (`admin`), so they are documented and guarded like the
// routes defined with defineRoute.
import type { RouteOptions } from 'fastify';
import { KILL_SWITCH_ROUTE } from './kill-switch-routes.js';
import type { ApiErrorCode } from '../api-errors.js';
import type { RouteDocumentation } from '../define-route.js';

const COMMON_ERRORS: ApiErrorCode[] = ['unauthorized', 'forbidden', 'shutting_down', 'internal_error'];

const byMethod: Record<string, { operationId: string; summary: string; description: string; documentation: RouteDocumentation }> = {
  GET: {
    operationId: 'getKillSwitch',
    summary: 'Kill switch state',
    description:
      'The fleet-wide kill switch: `mode` (`read_write` or `read_only`), why and since when, the sliding window of validated tool outputs, the last automatic trip and the settings. Needs the `admin` scope.',
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
      'Body `{"mode": "read_only" | "read_write", "reason"?}`. `read_only` stops every writing tool fleet-wide until an operator sets `read_write` again, which also clears the window. Needs the `admin` scope.',
    documentation: {
      access: 'admin',
      responses: { 200: { description: 'The kill switch state after the change' } },
      errors: ['invalid_body', 'unsupported_media_type', 'body_too_large', ...COMMON_ERRORS],
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
