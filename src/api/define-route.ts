// One declaration per route: its zod request schemas, its documented responses and the registry
// error codes it can answer. Registering it gives Fastify the schemas to validate and serialize
// with, and keeps the documentation beside them for the OpenAPI transform, so a route cannot be
// added without being documented.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { z } from 'zod';
import type { ApiKeyScope } from '../auth/api-key-scopes.js';
import { apiErrorDefinition, errorBodySchema, type ApiErrorCode } from './api-errors.js';

type Part = z.ZodType | undefined;
type Output<Schema extends Part> = Schema extends z.ZodType ? z.output<Schema> : unknown;

export interface RouteResponse {
  description: string;
  /** JSON body schema; omitted for bodies that are not JSON (files, streams, redirects). */
  schema?: z.ZodType;
  /** Media types of a non-JSON body, for the docs. */
  contentTypes?: string[];
  /** Response headers, for the docs. */
  headers?: Record<string, { description: string }>;
}

/** Who may call a route: anyone, or an API key with this scope (see request-auth.ts). */
export type RouteAccess = ApiKeyScope | 'public';

export interface RouteDocumentation {
  responses: Record<number, RouteResponse>;
  errors: readonly ApiErrorCode[];
  access: RouteAccess;
}

export interface RouteDefinition<Body extends Part, Params extends Part, Query extends Part, Headers extends Part> {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  /** Required: a route cannot be added without deciding who may call it. */
  access: RouteAccess;
  body?: Body;
  params?: Params;
  query?: Query;
  headers?: Headers;
  responses: Record<number, RouteResponse>;
  /** Every registry code this route can answer besides internal_error. */
  errors: readonly ApiErrorCode[];
  handler(
    request: FastifyRequest<{ Body: Output<Body>; Params: Output<Params>; Querystring: Output<Query>; Headers: Output<Headers> }>,
    reply: FastifyReply,
  ): Promise<unknown>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's documentation, read by the OpenAPI transform. */
    documentation?: RouteDocumentation;
  }
}

/** Registers a route definition on the app. */
export function registerRoute<Body extends Part, Params extends Part, Query extends Part, Headers extends Part>({
  app,
  route,
}: {
  app: FastifyInstance;
  route: RouteDefinition<Body, Params, Query, Headers>;
}): void {
  // Any route can fail unexpectedly or meet a server that is shutting down; any route behind a
  // scope can meet a missing, weak or doubled key; any route that reads a body (it answers
  // unsupported_media_type) can meet one that is not UTF-8 JSON (json-body-parser.ts).
  const authErrors: ApiErrorCode[] = route.access === 'public' ? [] : ['unauthorized', 'forbidden', 'duplicate_authorization'];
  const bodyErrors: ApiErrorCode[] = route.errors.includes('unsupported_media_type') ? ['unsupported_charset', 'invalid_body_encoding'] : [];
  const errors: ApiErrorCode[] = [...new Set<ApiErrorCode>([...authErrors, ...route.errors, ...bodyErrors, 'shutting_down', 'internal_error'])];
  const response: Record<number, z.ZodType> = {};
  for (const code of errors) response[apiErrorDefinition(code).statusCode] = errorBodySchema;
  // A status the route documents itself keeps its own schema, which must then also accept the
  // error body (see readinessFailureSchema).
  for (const [status, documented] of Object.entries(route.responses)) {
    if (documented.schema) response[Number(status)] = documented.schema;
  }
  const documentation: RouteDocumentation = { responses: route.responses, errors, access: route.access };
  app.route({
    method: route.method,
    url: route.url,
    schema: {
      operationId: route.operationId,
      summary: route.summary,
      description: route.description,
      tags: route.tags,
      ...(route.body ? { body: route.body } : {}),
      ...(route.params ? { params: route.params } : {}),
      ...(route.query ? { querystring: route.query } : {}),
      ...(route.headers ? { headers: route.headers } : {}),
      response,
    },
    config: { documentation },
    // The request generics are guaranteed by the schemas above, which Fastify validates with.
    handler: route.handler as unknown as RouteHandlerMethod,
  });
}

/** Declares a route, inferring the handler's request types from its schemas. */
export function defineRoute<Body extends Part = undefined, Params extends Part = undefined, Query extends Part = undefined, Headers extends Part = undefined>(
  route: RouteDefinition<Body, Params, Query, Headers>,
): RouteDefinition<Body, Params, Query, Headers> {
  return route;
}
