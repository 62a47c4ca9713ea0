// A forward HTTP proxy on 127.0.0.1 that puts a browser behind the SSRF guard. The screenshot
// tool starts one per screenshot and launches Chromium with it as its only way out
// (--proxy-server, with the implicit loopback bypass subtracted): every document, subresource,
// redirect hop, fetch/XHR, WebSocket and worker request then arrives here either as an
// absolute-form request (`GET http://host/path`, plain HTTP) or as a CONNECT tunnel (https, ws,
// wss). Each target is judged by `checkTarget` (the owner's policy: the fetch tools' own, see
// src/tools/http/browser-egress-policy.ts); a target that is allowed but not trusted is then
// resolved by the guard's lookup and connected to exactly the address that was checked (no second
// DNS lookup, so no rebinding), and the connected socket's address is checked once more before a
// byte is relayed. Refused requests are answered 403 and recorded; nothing refused is forwarded.
//
// The policy is passed in rather than imported: src/tools already depends on src/safety, and the
// reverse edge would make the two folders a cycle.
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { blockedAddressReason, createGuardedLookup, SsrfBlockedError, systemResolver, type HostResolver } from './ssrf-guard.js';

/** What the browser asked for: a plain HTTP request (absolute-form URL) or a tunnel (CONNECT). */
export type ProxyTarget = { kind: 'request'; url: URL } | { kind: 'tunnel'; hostname: string; port: number };

/** The policy's answer. Trusted targets (the allowlist) are connected without an address check,
 * like the fetch tools' (src/safety/ssrf-guard-fetch.ts `trusted`). */
export type ProxyDecision = { allowed: true; trusted: boolean } | { allowed: false; reason: string };

export interface RefusedRequest {
  /** `GET http://host/path` for a request, `CONNECT host:port` for a tunnel. */
  request: string;
  reason: string;
}

export interface GuardedForwardProxy {
  /** http://127.0.0.1:<port>, for --proxy-server. */
  url: string;
  /** The value of PROXY_ANSWER_HEADER on the proxy's own answers (403 refused, 502 unreachable).
   * Random per proxy, so a site cannot forge it: the owner can tell a document the guard refused
   * from a site's own 403. */
  proxyAnswerMarker: string;
  /** Every refusal counted; the first MAX_RECORDED_REFUSALS kept, in order. */
  refusals(): { count: number; first: RefusedRequest[] };
  /** Stops listening and destroys every connection, tunnels included. */
  close(): Promise<void>;
}

export const PROXY_ANSWER_HEADER = 'x-buildfleet-egress-guard';
export const MAX_RECORDED_REFUSALS = 50;
const MAX_RECORDED_CHARACTERS = 300;

// RFC 9110 §7.6.1: headers that describe one connection, never forwarded by a proxy (plus the
// proxy-only ones Chromium sends and the ones named in Connection, removed per request below).
const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

// CONNECT's request-target is authority-form, host ":" port (RFC 9110 §9.3.6): a bracketed IPv6
// literal or a reg-name/IPv4 without userinfo, path or query.
const AUTHORITY = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]+):(\d{1,5})$/;

function capped(text: string): string {
  return text.length > MAX_RECORDED_CHARACTERS ? `${text.slice(0, MAX_RECORDED_CHARACTERS)}…` : text;
}

/** The host to hand to net/http connect: URL hostnames keep IPv6 literals in brackets. */
function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** host:port of a CONNECT, with the host normalized by WHATWG URL parsing (the same spellings the
 * fetch tools normalize: 2130706433 and 0x7f.1 become 127.0.0.1), or null when it is not one. */
export function parseConnectAuthority(authority: string): { hostname: string; port: number } | null {
  const match = AUTHORITY.exec(authority);
  if (!match) return null;
  const port = Number(match[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return null;
  try {
    const hostname = new URL(`http://${match[1] ?? ''}/`).hostname;
    return hostname === '' ? null : { hostname, port };
  } catch {
    return null;
  }
}

function parseAbsoluteHttpUrl(raw: string): URL | null {
  if (!raw.startsWith('http://')) return null;
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

/** The headers of a request or response that may be forwarded: hop-by-hop ones and those the
 * Connection header names are dropped; repeated ones (Set-Cookie) stay separate lines. */
function forwardableHeaders(incoming: IncomingMessage): Record<string, string | string[]> {
  const named = new Set(
    String(incoming.headers.connection ?? '')
      .split(',')
      .map((token) => token.trim().toLowerCase()),
  );
  const headers: Record<string, string | string[]> = {};
  for (let index = 0; index + 1 < incoming.rawHeaders.length; index += 2) {
    const name = (incoming.rawHeaders[index] ?? '').toLowerCase();
    if (HOP_BY_HOP.has(name) || named.has(name)) continue;
    const value = incoming.rawHeaders[index + 1] ?? '';
    const existing = headers[name];
    headers[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return headers;
}

/** Starts a proxy on 127.0.0.1 with a free port. `resolve` scripts DNS in tests. */
export async function startGuardedForwardProxy({
  checkTarget,
  resolve = systemResolver,
}: {
  checkTarget: (target: ProxyTarget) => ProxyDecision;
  resolve?: HostResolver;
}): Promise<GuardedForwardProxy> {
  const proxyAnswerMarker = randomBytes(16).toString('hex');
  const guardedLookup = createGuardedLookup({ resolve });
  const sockets = new Set<Duplex>();
  const recorded: RefusedRequest[] = [];
  let refusalCount = 0;

  const track = (socket: Duplex) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const record = (request: string, reason: string) => {
    refusalCount += 1;
    if (recorded.length < MAX_RECORDED_REFUSALS) recorded.push({ request: capped(request), reason: capped(reason) });
  };

  // A policy that throws refuses: an exception in a socket handler would take the worker down,
  // and an unchecked target must never be relayed.
  const decide = (target: ProxyTarget): ProxyDecision => {
    try {
      return checkTarget(target);
    } catch (error) {
      return { allowed: false, reason: `the policy check failed: ${error instanceof Error ? error.message : String(error)}` };
    }
  };

  /** The proxy's own answer (a refusal, or an upstream it could not reach), marked as such. */
  const answer = (response: ServerResponse, status: 403 | 502, text: string) => {
    if (response.headersSent) {
      response.destroy();
      return;
    }
    response
      .writeHead(status, {
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': 'no-store',
        [PROXY_ANSWER_HEADER]: proxyAnswerMarker,
      })
      .end(`${text}\n`);
  };
  const refuseRequest = (response: ServerResponse, request: string, reason: string) => {
    record(request, reason);
    answer(response, 403, `Refused by the buildfleet egress guard: ${reason}`);
  };

  const answerTunnel = (socket: Duplex, status: 403 | 400 | 502, text: string) => {
    const body = `${text}\n`;
    const statusText = status === 403 ? 'Forbidden' : status === 400 ? 'Bad Request' : 'Bad Gateway';
    socket.end(
      `HTTP/1.1 ${status} ${statusText}\r\ncontent-type: text/plain; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n${PROXY_ANSWER_HEADER}: ${proxyAnswerMarker}\r\nconnection: close\r\n\r\n${body}`,
    );
  };

  const onRequest = (incoming: IncomingMessage, response: ServerResponse) => {
    const method = incoming.method ?? 'GET';
    const raw = incoming.url ?? '';
    // Only absolute-form http: URLs are proxy requests; Chromium tunnels https and ws(s) with
    // CONNECT, so anything else here did not come from the browser's proxy client. Refused all
    // the same: nothing leaves the proxy unchecked.
    const url = parseAbsoluteHttpUrl(raw);
    const label = `${method} ${url?.href ?? raw}`;
    if (!url) {
      incoming.resume();
      refuseRequest(response, label, 'not an absolute http:// proxy request');
      return;
    }
    const decision = decide({ kind: 'request', url });
    if (!decision.allowed) {
      incoming.resume();
      refuseRequest(response, label, decision.reason);
      return;
    }
    const options: RequestOptions = {
      host: bareHost(url.hostname),
      port: url.port === '' ? 80 : Number(url.port),
      method,
      path: `${url.pathname}${url.search}`,
      // Host from the checked URL, whatever the browser sent.
      headers: { ...forwardableHeaders(incoming), host: url.host },
      setHost: false,
      // A socket of its own per request, so each connection passes the lookup and the check
      // below (a pooled socket would have been checked for another host).
      agent: false,
      ...(decision.trusted ? {} : { lookup: guardedLookup }),
    };
    let upstream: ClientRequest;
    try {
      upstream = httpRequest(options);
    } catch (error) {
      // Node refuses some option values outright (e.g. a header it will not write).
      incoming.resume();
      answer(response, 502, `Could not relay the request: ${capped(error instanceof Error ? error.message : String(error))}`);
      return;
    }
    upstream.on('socket', (socket: Socket) => {
      track(socket);
      if (decision.trusted) return;
      // Runs before the request is written (writes wait for 'connect'): the address actually
      // connected to is checked, whatever resolved it (an IP literal skips the lookup).
      socket.prependOnceListener('connect', () => {
        const reason = blockedAddressReason(socket.remoteAddress ?? '');
        if (reason) socket.destroy(new SsrfBlockedError(`${url.hostname} connected to ${socket.remoteAddress}, ${reason}`));
      });
    });
    upstream.on('response', (upstreamAnswer) => {
      try {
        response.writeHead(upstreamAnswer.statusCode ?? 502, upstreamAnswer.statusMessage ?? '', forwardableHeaders(upstreamAnswer));
      } catch {
        // A header Node will not write (invalid characters): the page gets a 502, not a crash.
        upstreamAnswer.destroy();
        answer(response, 502, 'Upstream answered with a header that cannot be relayed');
        return;
      }
      upstreamAnswer.pipe(response);
      upstreamAnswer.on('error', () => response.destroy());
    });
    upstream.on('error', (error) => {
      if (SsrfBlockedError.isInstance(error)) {
        refuseRequest(response, label, error.message);
      } else {
        answer(response, 502, `Upstream failed: ${capped(error.message)}`);
      }
    });
    response.on('close', () => upstream.destroy());
    incoming.pipe(upstream);
  };

  const onConnect = (incoming: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    client.on('error', () => client.destroy());
    const raw = incoming.url ?? '';
    const label = `CONNECT ${raw}`;
    const target = parseConnectAuthority(raw);
    if (!target) {
      record(label, 'not a host:port authority');
      answerTunnel(client, 400, 'CONNECT needs host:port');
      return;
    }
    const decision = decide({ kind: 'tunnel', hostname: target.hostname, port: target.port });
    if (!decision.allowed) {
      record(label, decision.reason);
      answerTunnel(client, 403, `Refused by the buildfleet egress guard: ${decision.reason}`);
      return;
    }
    const upstream = connect({
      host: bareHost(target.hostname),
      port: target.port,
      ...(decision.trusted ? {} : { lookup: guardedLookup }),
    });
    track(upstream);
    let established = false;
    upstream.once('connect', () => {
      const reason = decision.trusted ? null : blockedAddressReason(upstream.remoteAddress ?? '');
      if (reason) {
        upstream.destroy(new SsrfBlockedError(`${target.hostname} connected to ${upstream.remoteAddress}, ${reason}`));
        return;
      }
      established = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (error) => {
      if (established) {
        client.destroy();
      } else if (SsrfBlockedError.isInstance(error)) {
        record(label, error.message);
        answerTunnel(client, 403, `Refused by the buildfleet egress guard: ${error.message}`);
      } else {
        answerTunnel(client, 502, `Upstream failed: ${capped(error.message)}`);
      }
    });
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
  };

  const server = createServer(onRequest);
  server.on('connect', onConnect);
  // Upgrade requests in absolute form (Chromium tunnels WebSockets with CONNECT instead) are not
  // relayed: a refused answer and a closed socket.
  server.on('upgrade', (incoming: IncomingMessage, socket: Duplex) => {
    track(socket);
    socket.on('error', () => socket.destroy());
    record(`${incoming.method ?? 'GET'} ${incoming.url ?? ''} (upgrade)`, 'upgrade requests are not relayed; WebSockets go through CONNECT');
    answerTunnel(socket, 403, 'Refused by the buildfleet egress guard: upgrade requests are not relayed');
  });
  server.on('connection', (socket: Socket) => track(socket));
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolveListen());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    proxyAnswerMarker,
    refusals: () => ({ count: refusalCount, first: [...recorded] }),
    async close() {
      const closed = new Promise<void>((resolveClose) => server.close(() => resolveClose()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
