// One HTTP request (no redirects followed) through node:http/https with the SSRF guard on the
// connection itself: the URL's host must not be a refused address, a name is resolved by the
// guarded lookup (ssrf-guard.ts) so the socket connects to exactly the address that was checked,
// and the connected socket's remote address is checked once more before a byte is sent. The
// answer is a standard `Response` (body streamed, gzip/deflate/br decoded like fetch), so callers
// read it as they would read fetch's. Global fetch cannot do this: its connector (undici) takes no
// lookup without the undici package.
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { blockedAddressReason, blockedHostReason, createGuardedLookup, SsrfBlockedError, systemResolver, type HostResolver } from './ssrf-guard.js';

export interface GuardedFetchInit {
  method: 'GET' | 'HEAD' | 'POST' | 'DELETE';
  headers: Record<string, string>;
  /** The request body (POST: a webhook delivery, src/webhooks/), sent once the socket passed the
   * address check. */
  body?: string;
  signal: AbortSignal;
  /** The target is on the operator's allowlist (the fleet's own origin, BUILDFLEET_FETCH_ALLOWLIST):
   * its addresses are not checked, so a loopback API in development stays reachable. */
  trusted: boolean;
  /** DNS for untrusted targets (default: the system resolver); tests script answers here. */
  resolve?: HostResolver;
}

const BODYLESS_STATUSES = new Set([101, 204, 205, 304]);

function decodedBody(incoming: IncomingMessage): Readable {
  const encoding = String(incoming.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : null;
  if (!decoder) return incoming;
  incoming.on('error', (error) => decoder.destroy(error));
  decoder.on('close', () => incoming.destroy());
  return incoming.pipe(decoder);
}

function headersOf(incoming: IncomingMessage): Headers {
  const headers = new Headers();
  for (let index = 0; index + 1 < incoming.rawHeaders.length; index += 2) {
    try {
      headers.append(incoming.rawHeaders[index] ?? '', incoming.rawHeaders[index + 1] ?? '');
    } catch {
      // A header value fetch would refuse (e.g. non-Latin-1) is left out rather than fail the request.
    }
  }
  return headers;
}

/** Makes one request; rejects with SsrfBlockedError for a refused target, with the signal's
 * reason when it aborts, and otherwise like fetch (TypeError 'fetch failed' with a cause). */
export function guardedFetch(url: URL, init: GuardedFetchInit): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      reject(new SsrfBlockedError(`${url.protocol} URLs cannot be fetched`));
      return;
    }
    const literalReason = init.trusted ? null : blockedHostReason(url.hostname);
    if (literalReason) {
      reject(new SsrfBlockedError(`${url.hostname} is ${literalReason}`));
      return;
    }
    const options: RequestOptions = {
      method: init.method,
      headers: { 'accept-encoding': 'gzip, deflate, br', ...init.headers },
      signal: init.signal,
      // A socket of its own per request, so every connection goes through the lookup below
      // (a pooled socket would have been checked for another host).
      agent: false,
      ...(init.trusted ? {} : { lookup: createGuardedLookup({ resolve: init.resolve ?? systemResolver }) }),
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      if (SsrfBlockedError.isInstance(error)) reject(error);
      else if (init.signal.aborted) reject(init.signal.reason ?? error);
      else reject(new TypeError('fetch failed', { cause: error }));
    };
    const outgoing = send(url, options, (incoming) => {
      const status = incoming.statusCode ?? 0;
      if (status < 200 || status > 599) {
        incoming.destroy();
        fail(new Error(`invalid HTTP status ${status}`));
        return;
      }
      const bodyless = init.method === 'HEAD' || BODYLESS_STATUSES.has(status);
      if (bodyless) incoming.resume();
      const body = bodyless ? null : (Readable.toWeb(decodedBody(incoming)) as unknown as ReadableStream<Uint8Array>);
      settled = true;
      resolve(new Response(body, { status, statusText: incoming.statusMessage ?? '', headers: headersOf(incoming) }));
    });
    outgoing.on('error', fail);
    if (!init.trusted) {
      outgoing.on('socket', (socket: Socket) => {
        // Runs before the request is written (writes wait for 'connect'): the address actually
        // connected to is checked, whatever resolved it.
        socket.prependOnceListener('connect', () => {
          const reason = blockedAddressReason(socket.remoteAddress ?? '');
          if (reason) socket.destroy(new SsrfBlockedError(`${url.hostname} connected to ${socket.remoteAddress}, ${reason}`));
        });
      });
    }
    outgoing.end(init.body);
  });
}
