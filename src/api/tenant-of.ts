// The one place a request is mapped to its tenant: the tenant of the API key that authenticated
// it (request-auth.ts). Every run, idempotency key and lookup is scoped by it.
import type { FastifyRequest } from 'fastify';
import type { RequestAuth } from './request-auth.js';

/** The tenant a request acts for. Only called on routes behind a scope, where the auth hook has
 * set `request.auth`; anything else is a wiring bug and fails the request rather than guess. */
export function tenantOf(request: FastifyRequest): string {
  if (!request.auth) throw new Error('tenantOf called on a request that was not authenticated');
  return request.auth.tenant;
}

/** The caller of a request (tenant, key id and scopes), on routes behind a scope; like tenantOf,
 * anything else is a wiring bug. */
export function authOf(request: FastifyRequest): RequestAuth {
  if (!request.auth) throw new Error('authOf called on a request that was not authenticated');
  return request.auth;
}
