// Fastify validator and serializer compilers over zod schemas, so the route schemas are zod (one
// source of truth for validation, types and the OpenAPI document) instead of hand-kept JSON Schema.
// A failing request part becomes the registry's error for that part, never Fastify's generic 400.
import type { FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify';
import { z } from 'zod';
import { apiErrors, type ApiErrorFactory } from './api-errors.js';
import { formatZodIssues } from '../domain/format-zod-issues.js';

/** The request part a path is rooted at. */
type RequestPart = 'body' | 'params' | 'query' | 'headers';

// Path parameters that name a resource: failing their schema means "no such resource", so the
// client gets that resource's 404 rather than a 400 that hints the id format was guessed wrong.
const resourceParamErrors = new WeakMap<z.ZodType, ApiErrorFactory<string>>();

/** Marks a params schema whose failure means the resource does not exist. */
export function resourceParams<Schema extends z.ZodType>(schema: Schema, notFound: ApiErrorFactory<string>): Schema {
  resourceParamErrors.set(schema, notFound);
  return schema;
}

export function isZodSchema(value: unknown): value is z.ZodType {
  return value instanceof z.ZodType;
}

const partOf: Record<string, RequestPart> = { body: 'body', params: 'params', querystring: 'query', headers: 'headers' };

/** Validates a request part with its zod schema; the parsed output replaces the raw part. */
export const zodValidatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (!isZodSchema(schema)) throw new Error(`route schema for ${String(httpPart)} is not a zod schema`);
  const part = partOf[httpPart ?? 'body'] ?? 'body';
  const notFound = part === 'params' ? resourceParamErrors.get(schema) : undefined;
  return (data: unknown) => {
    // Fastify reports a request without a body as null or undefined depending on the path taken.
    if (part === 'body' && (data === undefined || data === null)) {
      return { error: apiErrors.invalidBody('body: Required: send a JSON object') };
    }
    const parsed = schema.safeParse(data);
    if (parsed.success) return { value: parsed.data };
    const message = formatZodIssues({ issues: parsed.error.issues, root: part, limit: 5 });
    switch (part) {
      case 'body':
        return { error: apiErrors.invalidBody(message) };
      case 'params':
        return { error: notFound ? notFound() : apiErrors.invalidParams(message) };
      case 'query':
        return { error: apiErrors.invalidQuery(message) };
      case 'headers':
        return { error: apiErrors.invalidHeader(message) };
    }
  };
};

/** Checks a response against its zod schema before sending: a handler that drifts from the
 * documented shape fails loudly (500, logged) instead of silently breaking clients. */
export const zodSerializerCompiler: FastifySerializerCompiler<unknown> = ({ schema }) => {
  if (!isZodSchema(schema)) return (data: unknown) => JSON.stringify(data);
  return (data: unknown) => JSON.stringify(schema.parse(data));
};
