// The one place a request is mapped to its tenant: the tenant of the API key that authenticated
// it (request-auth.ts). Every run, idempotency key and lookup is scoped by it, except that a key
// with the `admin` scope reaches the runs of every tenant (runTenantScopeOf).
import type { FastifyRequest } from 'fastify';
import { hasScope } from '../auth/api-key-scopes.js';
import type { RequestAuth } from './request-auth.js';
import { apiErrors } from './api-errors.js';

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

/** The tenant whose runs the request may read and steer (GET /v1/runs/:id and its payloads and
 * events; cancel, input, resume, rerun): its own, or for a key with the `admin` scope any tenant's,
 * answered as undefined. An operator must be able to inspect and stop any run from the console;
 * every other key meets another tenant's run as run_not_found. */
export function runTenantScopeOf(request: FastifyRequest): string | undefined {
  const auth = authOf(request);
  return hasScope({ scopes: auth.scopes, required: 'admin' }) ? undefined : auth.tenant;
}

/** Whether the caller holds the `admin` scope. */
export function isAdminRequest(request: FastifyRequest): boolean {
  return hasScope({ scopes: authOf(request).scopes, required: 'admin' });
}

/** A `?tenant=` naming another tenant than the caller's: allowed to an admin key only, else 403
 * `forbidden` saying what (`reading` names it: "list another tenant's runs"). */
export function requireTenantReadable(request: FastifyRequest, named: string | undefined, reading: string): void {
  if (named !== undefined && named !== authOf(request).tenant && !isAdminRequest(request)) {
    throw apiErrors.forbidden(`Only a key with the admin scope may ${reading}.`);
  }
}
