// Authentication and authorization of every request, in one onRequest hook that runs before the
// body is read: a request without a valid key for a protected route costs one or two Redis reads
// and nothing else. Each route declares its access (define-route.ts); a route that declares none
// (one a plugin added) needs `admin`, except the docs, so forgetting a declaration fails closed.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_KEY_SCOPES, hasScope, type ApiKeyScope } from '../auth/api-key-scopes.js';
import type { ApiKeyStore } from '../auth/api-key-store.js';
import { apiErrors } from './api-errors.js';
import type { RouteAccess } from './define-route.js';

/** The caller of a request, once authenticated. */
export interface RequestAuth {
  /** null when authentication is disabled. */
  keyId: string | null;
  tenant: string;
  scopes: readonly ApiKeyScope[];
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on every route that is not public. */
    auth: RequestAuth | null;
  }
}

/** The tenant every request acts for while BUILDFLEET_AUTH=disabled. */
export const UNAUTHENTICATED_TENANT = 'default';
const REALM = 'Bearer realm="buildfleet"';
const BEARER = /^Bearer +([^\s]+) *$/i;

/** Who may call the route a request matched; null when it matched none (the 404 handler). */
function accessOf(request: FastifyRequest): RouteAccess | null {
  const documentation = request.routeOptions.config.documentation;
  if (documentation) return documentation.access;
  const url = request.routeOptions.url;
  if (url === undefined) return null;
  // The OpenAPI document and Swagger UI (registered by @fastify/swagger-ui) describe the API to
  // anyone who would call it.
  if (url === '/docs' || url.startsWith('/docs/')) return 'public';
  return 'admin';
}

/** How many Authorization fields the request carried (rawHeaders keeps every field, in order:
 * name, value, name, value …). */
function authorizationHeaderCount(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) if (rawHeaders[index]?.toLowerCase() === 'authorization') count += 1;
  return count;
}

/** The RFC 6750 challenge of a 400, 401 or 403. */
function challenge(error?: string, scope?: ApiKeyScope): Record<string, string> {
  return { 'www-authenticate': `${REALM}${error ? `, error="${error}"` : ''}${scope ? `, scope="${scope}"` : ''}` };
}

/** Installs `request.auth` and the hook; `mode: 'disabled'` lets every request in as tenant
 * `default` with every scope. */
export function installRequestAuth({ app, keyStore, mode }: { app: FastifyInstance; keyStore: ApiKeyStore; mode: 'required' | 'disabled' }): void {
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request) => {
    const access = accessOf(request);
    if (access === null || access === 'public') return;
    if (mode === 'disabled') {
      request.auth = { keyId: null, tenant: UNAUTHENTICATED_TENANT, scopes: API_KEY_SCOPES };
      return;
    }
    // Node keeps only the first of duplicate Authorization headers in `headers`; a proxy in front
    // may judge the last. Two credentials for one request are refused, never guessed between.
    if (authorizationHeaderCount(request.raw.rawHeaders) > 1) {
      throw apiErrors.duplicateAuthorization().withHeaders(challenge('invalid_request'));
    }
    const header = request.headers.authorization;
    if (typeof header !== 'string' || header === '') {
      throw apiErrors.unauthorized().withHeaders(challenge());
    }
    const token = BEARER.exec(header)?.[1];
    if (token === undefined) {
      throw apiErrors.unauthorized('Send the API key as Authorization: Bearer bf_….').withHeaders(challenge('invalid_request'));
    }
    const verified = await keyStore.verify(token);
    if (!verified) {
      throw apiErrors.unauthorized('The API key is not valid (unknown, malformed or revoked).').withHeaders(challenge('invalid_token'));
    }
    request.auth = verified;
    request.log = request.log.child({ tenant: verified.tenant, keyId: verified.keyId });
    if (!hasScope({ scopes: verified.scopes, required: access })) {
      throw apiErrors.forbidden(`This API key lacks the ${access} scope this endpoint needs.`).withHeaders(challenge('insufficient_scope', access));
    }
  });
}
