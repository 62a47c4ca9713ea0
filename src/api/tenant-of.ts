// The one place a request is mapped to its tenant. Every run, idempotency key and lookup is
// scoped by it, so adding authentication later changes this function and nothing else.
import type { FastifyRequest } from 'fastify';

export const DEFAULT_TENANT = 'default';

/** The tenant a request acts for. Until API keys exist every request is the default tenant. */
export function tenantOf(_request: FastifyRequest): string {
  return DEFAULT_TENANT;
}
