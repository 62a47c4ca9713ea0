// The error handling both HTTP servers share (the API, api-server.ts, and the sites origin,
// sites-server.ts): every failure — a request Node's parser rejects, a URL Fastify cannot route, a
// thrown error, an unknown path, a request during shutdown — is answered as
// `{ error: { code, message } }` with a code of the registry in api-errors.ts. Fastify takes part
// of this as constructor options and part as handlers on the instance, hence the two halves.
import type { FastifyInstance, FastifyReply, FastifyServerOptions } from 'fastify';
import { apiErrors, errorBodyOf } from './api-errors.js';
import { answerClientError } from './client-error-handler.js';
import { toApiError } from './to-api-error.js';

type ErrorHandlingServerOptions = Required<Pick<FastifyServerOptions, 'return503OnClosing' | 'clientErrorHandler' | 'frameworkErrors'>>;

/** The Fastify constructor options of the shared error handling, to spread into `Fastify({...})`.
 * `frameworkErrorHeaders` go on the answers to errors Fastify raises before routing: those answers
 * run no onSend hook (fastify.js onBadUrl builds the reply outside any route's context), so a
 * server whose every answer must carry headers (the sites origin's CSP) names them here too. */
export function errorHandlingServerOptions({
  frameworkErrorHeaders = {},
}: { frameworkErrorHeaders?: Readonly<Record<string, string>> } = {}): ErrorHandlingServerOptions {
  return {
    // Fastify's own closing answer is not in the API's error shape; installErrorHandling's
    // onRequest hook answers shutting_down instead.
    return503OnClosing: false,
    clientErrorHandler: answerClientError,
    // Errors Fastify raises before the error handler exists for the request (a URL that does not
    // decode) go through the same classification as every other error.
    frameworkErrors: (error, _request, reply) => {
      const apiError = toApiError(error);
      void (reply as unknown as FastifyReply).code(apiError.statusCode).headers(frameworkErrorHeaders).send(errorBodyOf(apiError));
    },
  };
}

/** Sets the error and not-found handlers, and answers shutting_down to requests that arrive once
 * the server is closing. Call it before other onRequest hooks (authentication), so a closing
 * server refuses a request before doing any work for it. */
export function installErrorHandling({ app }: { app: FastifyInstance }): void {
  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: apiError.code }, 'request rejected');
    return reply.code(apiError.statusCode).headers(apiError.headers).send(errorBodyOf(apiError));
  });
  app.setNotFoundHandler((_request, reply) => {
    const apiError = apiErrors.notFound();
    return reply.code(apiError.statusCode).send(errorBodyOf(apiError));
  });

  let closing = false;
  app.addHook('onRequest', async () => {
    if (closing) throw apiErrors.shuttingDown();
  });
  app.addHook('preClose', async () => {
    closing = true;
  });
}
