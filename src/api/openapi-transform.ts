// Feeds @fastify/swagger: turns each route's zod schemas into OpenAPI 3.0 schema objects with
// z.toJSONSchema, and its documented responses and registry error codes into response objects,
// so the document at /docs/json is generated from exactly what the server validates.
import { z } from 'zod';
import { apiErrorDefinition, errorBodySchema } from './api-errors.js';
import type { RouteDocumentation } from './define-route.js';
import { isZodSchema } from './zod-route-compilers.js';

type JsonObject = Record<string, unknown>;

function toOpenApiSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  return z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as JsonObject;
}

// Fastify names a wildcard parameter `*`; OpenAPI needs a real name in the path template.
const WILDCARD_NAME = 'path';

function renameWildcard(schema: JsonObject): JsonObject {
  const properties = schema.properties as Record<string, unknown> | undefined;
  if (!properties || !('*' in properties)) return schema;
  const { '*': wildcard, ...rest } = properties;
  const required = Array.isArray(schema.required) ? (schema.required as string[]).map((name) => (name === '*' ? WILDCARD_NAME : name)) : schema.required;
  return { ...schema, properties: { ...rest, [WILDCARD_NAME]: wildcard }, ...(required ? { required } : {}) };
}

function responsesOf(documentation: RouteDocumentation): JsonObject {
  const responses: JsonObject = {};
  for (const [status, documented] of Object.entries(documentation.responses)) {
    const content: JsonObject = {};
    if (documented.schema) content['application/json'] = { schema: toOpenApiSchema(documented.schema, 'output') };
    for (const type of documented.contentTypes ?? [])
      content[type] = { schema: type.startsWith('text/') ? { type: 'string' } : { type: 'string', format: 'binary' } };
    responses[status] = {
      description: documented.description,
      ...(Object.keys(content).length > 0 ? { content } : {}),
      ...(documented.headers
        ? {
            headers: Object.fromEntries(
              Object.entries(documented.headers).map(([name, header]) => [name, { type: 'string', description: header.description }]),
            ),
          }
        : {}),
    };
  }
  // Several codes can share a status; the response lists every code the client may see there.
  const codesByStatus = new Map<number, string[]>();
  for (const code of documentation.errors) {
    const definition = apiErrorDefinition(code);
    codesByStatus.set(definition.statusCode, [...(codesByStatus.get(definition.statusCode) ?? []), `\`${code}\`: ${definition.description}`]);
  }
  const errorSchema = toOpenApiSchema(errorBodySchema, 'output');
  for (const [status, lines] of codesByStatus) {
    const documented = responses[String(status)] as { description: string } | undefined;
    responses[String(status)] = documented
      ? { ...documented, description: [documented.description, ...lines].join('\n\n') }
      : { description: lines.join('\n\n'), content: { 'application/json': { schema: errorSchema } } };
  }
  return responses;
}

/** The @fastify/swagger `transform` hook. */
export function openApiTransform({ schema, url, route }: { schema: unknown; url: string; route: { config?: { documentation?: RouteDocumentation } } }): {
  schema: JsonObject;
  url: string;
} {
  const source = (schema ?? {}) as JsonObject;
  const documentation = route.config?.documentation;
  // Routes registered by plugins (the docs UI itself) carry no zod schemas; leave them as they are.
  if (!documentation) return { schema: source, url };
  const transformed: JsonObject = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === 'response') continue;
    if (key === 'body' && isZodSchema(value)) transformed.body = toOpenApiSchema(value, 'input');
    else if (key === 'params' && isZodSchema(value)) transformed.params = renameWildcard(toOpenApiSchema(value, 'input'));
    else if ((key === 'querystring' || key === 'headers') && isZodSchema(value)) transformed[key] = toOpenApiSchema(value, 'input');
    else transformed[key] = value;
  }
  transformed.response = responsesOf(documentation);
  // Public routes say so explicitly; the others name the bearer scheme (the scope is in the
  // description and the 403 answer).
  transformed.security = documentation.access === 'public' ? [] : [{ bearerAuth: [] }];
  return { schema: transformed, url: url.replace(/\*$/, `:${WILDCARD_NAME}`) };
}
