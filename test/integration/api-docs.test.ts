// The OpenAPI document served at /docs/json: a well-formed OpenAPI 3.0 document that lists every
// route the server has, each with a summary, its parameters and every response it can give.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ERRORS } from '../../src/api/api-errors.js';
import { createApiTestHarness, type ApiTestHarness } from '../../src/api/testing/api-test-harness.js';

let harness: ApiTestHarness;

beforeAll(async () => {
  harness = await createApiTestHarness({ label: 'apidocs' });
});

afterAll(async () => {
  await harness.close();
});

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: unknown }>;
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
}

const EXPECTED_OPERATIONS = [
  'post /v1/runs',
  'get /v1/runs',
  'get /v1/admin/queues',
  'get /v1/admin/workers',
  'get /v1/admin/killswitch',
  'post /v1/admin/killswitch',
  'get /v1/admin/spend-limit',
  'post /v1/admin/spend-limit/clear',
  'get /v1/admin/tenants/{tenant}/policy',
  'put /v1/admin/tenants/{tenant}/policy',
  'get /v1/spend',
  'get /v1/overview',
  'get /v1/webhooks/signing-secret',
  'get /v1/agents',
  'get /v1/runs/{id}',
  'get /v1/runs/{id}/events',
  'get /v1/runs/{id}/turns',
  'get /v1/runs/{id}/tool-calls',
  'get /v1/runs/{id}/transcript',
  'get /v1/runs/{id}/files',
  'get /v1/runs/{id}/files/{path}',
  'post /v1/runs/{id}/input',
  'post /v1/runs/{id}/resume',
  'post /v1/runs/{id}/rerun',
  'post /v1/runs/{id}/cancel',
  'get /healthz',
  'get /readyz',
  // Sites are served on their own origin; the API only redirects their paths there.
  'get /sites/{path}',
];

/** Every $ref in the document must point at something that exists. */
function collectRefs(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) collectRefs(item, found);
  else if (value && typeof value === 'object') {
    for (const [key, entry] of Object.entries(value)) {
      if (key === '$ref' && typeof entry === 'string') found.push(entry);
      else collectRefs(entry, found);
    }
  }
  return found;
}

describe('OpenAPI document', () => {
  it('serves the Swagger UI at /docs', async () => {
    const response = await harness.app.inject({ url: '/docs' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
  });

  it('is OpenAPI 3.0 and documents exactly the server’s routes', async () => {
    const response = await harness.app.inject({ url: '/docs/json' });
    expect(response.statusCode).toBe(200);
    const document = response.json() as { openapi: string; info: { title: string; version: string }; paths: Record<string, Record<string, Operation>> };
    expect(document.openapi).toMatch(/^3\.0\.\d+$/);
    expect(document.info.title).toBeTruthy();
    expect(document.info.version).toBeTruthy();

    const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`));
    expect(operations.sort()).toEqual([...EXPECTED_OPERATIONS].sort());

    const operationIds = new Set<string>();
    const registryCodes = new Set(API_ERRORS.map((definition) => definition.code));
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const where = `${method} ${path}`;
        expect(operation.summary, where).toBeTruthy();
        expect(operation.description, where).toBeTruthy();
        expect(operation.tags?.length, where).toBeGreaterThan(0);
        expect(operation.operationId, where).toBeTruthy();
        expect(operationIds.has(operation.operationId!), where).toBe(false);
        operationIds.add(operation.operationId!);

        // Every {name} in the path is a required path parameter, and nothing else is.
        const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
        const pathParameters = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path');
        expect(pathParameters.map((parameter) => parameter.name).sort(), where).toEqual([...templated].sort());
        expect(pathParameters.every((parameter) => parameter.required === true && parameter.schema), where).toBe(true);
        for (const parameter of operation.parameters ?? []) expect(['path', 'query', 'header'], where).toContain(parameter.in);

        expect(Object.keys(operation.responses).length, where).toBeGreaterThan(1);
        for (const [status, documented] of Object.entries(operation.responses)) {
          expect(status, where).toMatch(/^[1-5]\d\d$/);
          expect(documented.description, `${where} ${status}`).toBeTruthy();
          if (Number(status) >= 400 && !(path === '/readyz' && status === '503')) {
            const schema = documented.content?.['application/json']?.schema as { properties?: Record<string, unknown> } | undefined;
            expect(schema?.properties?.error, `${where} ${status}`).toBeTruthy();
            // The response description names each registry code the client may get there.
            const named = [...(documented.description ?? '').matchAll(/`([a-z_]+)`:/g)].map((match) => match[1]);
            expect(named.length, `${where} ${status}`).toBeGreaterThan(0);
            for (const code of named) expect(registryCodes.has(code!), `${where} ${status} ${code}`).toBe(true);
          }
        }
        expect(operation.responses['500'], where).toBeTruthy();
      }
    }

    const createRun = document.paths['/v1/runs']!.post!;
    const createRunBody = createRun.requestBody?.content['application/json']?.schema as { properties: Record<string, unknown>; required?: string[] };
    expect(createRunBody).toMatchObject({ type: 'object', additionalProperties: false });
    // `prompt` or the agent's `input`: one of the two, which the schema cannot say as `required`.
    expect(Object.keys(createRunBody.properties)).toEqual(expect.arrayContaining(['prompt', 'agent', 'input']));
    expect(createRunBody.required ?? []).toEqual([]);
    expect(createRun.parameters?.some((parameter) => parameter.in === 'header' && parameter.name === 'idempotency-key')).toBe(true);
    expect(Object.keys(createRun.responses).sort()).toEqual(['202', '400', '401', '403', '409', '413', '415', '422', '429', '500', '503']);
    expect(Object.keys(document.paths['/v1/runs/{id}/events']!.get!.responses['200']!.content ?? {}).sort()).toEqual([
      'application/json',
      'text/event-stream',
    ]);

    for (const ref of collectRefs(document)) {
      expect(ref.startsWith('#/'), ref).toBe(true);
      const target = ref
        .slice(2)
        .split('/')
        .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
      expect(target, ref).toBeTruthy();
    }
  });
});

describe('error registry', () => {
  it('has unique codes, each with a status and a description', () => {
    const codes = API_ERRORS.map((definition) => definition.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const definition of API_ERRORS) {
      expect(definition.code).toMatch(/^[a-z][a-z_]+$/);
      expect(definition.statusCode).toBeGreaterThanOrEqual(400);
      expect(definition.statusCode).toBeLessThan(600);
      expect(definition.description.length).toBeGreaterThan(20);
    }
    expect(codes).toEqual(
      expect.arrayContaining([
        'invalid_body',
        'invalid_params',
        'invalid_header',
        'run_not_found',
        'no_open_question',
        'run_already_ended',
        'idempotency_key_conflict',
        'unsupported_media_type',
        'body_too_large',
        'not_found',
        'internal_error',
      ]),
    );
  });
});
