// The small HTTP server every fleet process runs beside its work, for orchestrators and Prometheus:
//   GET /healthz  200 while the process runs (liveness: restart it when this stops answering)
//   GET /readyz   200 when ready() resolves true within 1 s, else 503 (readiness: route no work to it)
//   GET /metrics  the Prometheus exposition from metrics(), or 404 when the process has none
// Anything else is 404; methods other than GET and HEAD are 405. Worker processes have no other
// port, so this is what k8s probes, Docker HEALTHCHECK and Prometheus reach.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const READY_TIMEOUT_MS = 1_000;

export interface MetricsExposition {
  contentType: string;
  body: string;
}

export interface ProcessHttpServer {
  /** The port actually bound (the real one when asked for 0). */
  port: number;
  /** A URL that reaches the server from this machine (loopback for a wildcard bind). */
  url: string;
  close(): Promise<void>;
}

export interface ProcessHttpServerOptions {
  /** 0 picks a free port. */
  port: number;
  host: string;
  /** Whether the process can do its work now (e.g. its Redis connection is ready). */
  ready: () => Promise<boolean>;
  metrics?: () => Promise<MetricsExposition>;
}

function answer(response: ServerResponse, status: number, body: string, contentType = 'application/json; charset=utf-8'): void {
  response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}

async function readyWithin(ready: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    // A readiness check that throws means "not ready", never a crashed probe handler.
    return await Promise.race([ready().catch(() => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function handle(options: ProcessHttpServerOptions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    return answer(response, 405, JSON.stringify({ ok: false, error: 'method_not_allowed' }));
  }
  const path = new URL(request.url ?? '/', 'http://process').pathname;
  switch (path) {
    case '/healthz':
      return answer(response, 200, JSON.stringify({ ok: true }));
    case '/readyz': {
      const ready = await readyWithin(options.ready, READY_TIMEOUT_MS);
      return answer(response, ready ? 200 : 503, JSON.stringify({ ok: ready }));
    }
    case '/metrics': {
      if (!options.metrics) return answer(response, 404, JSON.stringify({ ok: false, error: 'no_metrics' }));
      const exposition = await options.metrics();
      return answer(response, 200, exposition.body, exposition.contentType);
    }
    default:
      return answer(response, 404, JSON.stringify({ ok: false, error: 'not_found' }));
  }
}

/** Starts the health and metrics server of a fleet process; resolves once it listens. */
export async function startProcessHttpServer(options: ProcessHttpServerOptions): Promise<ProcessHttpServer> {
  const server = createServer((request, response) => {
    handle(options, request, response).catch((error: unknown) => {
      if (response.headersSent) return response.destroy();
      answer(response, 500, JSON.stringify({ ok: false, error: error instanceof Error ? error.message : String(error) }));
    });
  });
  // Probes and scrapes are short; an idle keep-alive socket must not hold a shutdown open.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const connectable = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  const host = connectable.includes(':') ? `[${connectable}]` : connectable;
  let closing: Promise<void> | null = null;
  return {
    port: address.port,
    url: `http://${host}:${address.port}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
