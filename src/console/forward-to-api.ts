// Forwards a console request to the API of the same process over HTTP on its loopback address,
// with the session's API key added as the bearer token. HTTP rather than Fastify's inject: the
// run events are a Server-Sent Events stream that lasts as long as the run, which inject would
// buffer to the end; over a socket each event reaches the page as the API writes it. Only the
// headers the API reads go up and only the ones the page needs come back: the cookie never reaches
// the API and the key never reaches the page.
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConsoleError } from './console-errors.js';

const REQUEST_HEADERS = ['accept', 'content-type', 'last-event-id', 'idempotency-key'] as const;
const RESPONSE_HEADERS = ['content-type', 'cache-control', 'retry-after', 'idempotent-replayed', 'x-accel-buffering'] as const;

/** Upstream requests in flight, so closing the console can end the long-lived ones (event streams). */
export type OpenUpstreams = Set<ClientRequest>;

/** Sends the request to `apiUrl` + `path` and sets the API's status and headers on the reply once
 * they arrived; the caller sends the returned response as the body (streamed). */
export async function forwardToApi({
  request,
  reply,
  apiUrl,
  path,
  apiKey,
  openUpstreams,
}: {
  request: FastifyRequest;
  reply: FastifyReply;
  apiUrl: string;
  /** The API path with its query string, e.g. /v1/runs?limit=20. */
  path: string;
  apiKey: string;
  openUpstreams: OpenUpstreams;
}): Promise<IncomingMessage> {
  const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
  for (const name of REQUEST_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const body = Buffer.isBuffer(request.body) ? request.body : null;
  // Always a length on a request that may have a body (cancel has none): never chunked, which
  // the API would have to read to its end to know it is empty.
  if (body || (request.method !== 'GET' && request.method !== 'HEAD')) headers['content-length'] = String(body?.length ?? 0);

  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const upstream = httpRequest(new URL(path, apiUrl), { method: request.method, headers }, resolve);
    openUpstreams.add(upstream);
    upstream.on('close', () => openUpstreams.delete(upstream));
    upstream.on('error', (error) => reject(new ConsoleError('console_api_unreachable', `The console could not reach the API: ${error.message}`)));
    // The page went away (a closed tab, a navigation): the API's stream for it ends too.
    request.raw.on('close', () => {
      if (!reply.raw.writableFinished) upstream.destroy();
    });
    upstream.end(body ?? undefined);
  });

  reply.code(response.statusCode ?? 502);
  for (const name of RESPONSE_HEADERS) {
    const value = response.headers[name];
    if (value !== undefined) reply.header(name, value);
  }
  return response;
}
