// The error handling the API and the sites origin share, on a bare Fastify server: every kind of
// failure is answered in the registry's shape, and the headers a server asks for reach even the
// answers to errors Fastify raises before routing (which run no onSend hook).
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { apiErrors } from './api-errors.js';
import { errorHandlingServerOptions, installErrorHandling } from './install-error-handling.js';

const HEADERS = { 'x-every-answer': 'yes' };
let servers: FastifyInstance[] = [];

afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function serverWith({ frameworkErrorHeaders, extend }: { frameworkErrorHeaders?: Record<string, string>; extend?: (app: FastifyInstance) => void } = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, ...errorHandlingServerOptions(frameworkErrorHeaders ? { frameworkErrorHeaders } : {}) }) as unknown as FastifyInstance;
  installErrorHandling({ app });
  extend?.(app);
  app.get('/runs/:id', async (request) => {
    const { id } = request.params as { id: string };
    if (id === 'limited') throw apiErrors.rateLimited().withHeaders({ 'retry-after': '7' });
    if (id === 'broken') throw new Error('a secret internal detail');
    return { id };
  });
  servers.push(app);
  await app.ready();
  return app;
}

describe('installErrorHandling', () => {
  it('answers thrown errors, unknown routes and malformed URLs as { error: { code, message } }', async () => {
    const app = await serverWith({ frameworkErrorHeaders: HEADERS });
    const limited = await app.inject({ method: 'GET', url: '/runs/limited' });
    expect(limited.statusCode).toBe(apiErrors.rateLimited.statusCode);
    expect(limited.headers['retry-after']).toBe('7');
    expect(limited.json()).toMatchObject({ error: { code: 'rate_limited' } });

    const broken = await app.inject({ method: 'GET', url: '/runs/broken' });
    expect(broken.statusCode).toBe(500);
    expect(broken.json()).toEqual({ error: { code: 'internal_error', message: 'Something went wrong on our side.' } });

    const unknown = await app.inject({ method: 'GET', url: '/nowhere' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: { code: 'not_found', message: 'No such route.' } });

    // A parameter that does not percent-decode: Fastify's frameworkErrors, before any hook.
    const malformed = await app.inject({ method: 'GET', url: '/runs/%E0%A4%A' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toEqual({ error: { code: 'bad_request', message: 'The URL is malformed.' } });
    expect(malformed.headers['x-every-answer']).toBe('yes');
  });

  it('adds no headers of its own when the server names none', async () => {
    const app = await serverWith();
    const malformed = await app.inject({ method: 'GET', url: '/runs/%E0%A4%A' });
    expect(malformed.json()).toMatchObject({ error: { code: 'bad_request' } });
    expect(malformed.headers['x-every-answer']).toBeUndefined();
  });

  it('answers shutting_down to a request that arrives once the server is closing', async () => {
    let duringClose: { statusCode: number; body: unknown } | null = null;
    let origin = '';
    const app = await serverWith({
      // preClose hooks run in order: this one runs after installErrorHandling's has marked the
      // server closing, while it still listens (inject refuses a closing server; a client does not).
      extend: (server) =>
        server.addHook('preClose', async () => {
          const answer = await fetch(`${origin}/runs/run_1`);
          duringClose = { statusCode: answer.status, body: await answer.json() };
        }),
    });
    origin = await app.listen({ host: '127.0.0.1', port: 0 });
    expect(await (await fetch(`${origin}/runs/run_1`)).json()).toEqual({ id: 'run_1' });
    await app.close();
    expect(duringClose).toEqual({ statusCode: 503, body: { error: { code: 'shutting_down', message: 'The server is shutting down; retry.' } } });
  });
});
