// Test-only: an HTTP listener that must never be reached. It counts every TCP connection (a
// connection is a leak even if no request follows: a CONNECT tunnel, a WebSocket, a probe) and
// records the request lines it sees, so a failing test can say what got through.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CanaryListener {
  host: string;
  port: number;
  /** host:port as it appears in a URL ([::1]:port for IPv6). */
  authority: string;
  connections: number;
  requests: string[];
  close(): Promise<void>;
}

/** Listens on host with a free port; null when the host has no such address (no IPv6 loopback). */
export async function startCanaryListener(host: string): Promise<CanaryListener | null> {
  const server: Server = createServer((request, response) => {
    canary.requests.push(`${request.method} ${request.url}`);
    response.end('canary reached');
  });
  const canary: CanaryListener = {
    host,
    port: 0,
    authority: '',
    connections: 0,
    requests: [],
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', () => (canary.connections += 1));
  // A CONNECT or upgrade that reached it is counted as a connection above; answer and hang up.
  server.on('connect', (_request, socket) => socket.destroy());
  server.on('upgrade', (_request, socket) => socket.destroy());
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, host, resolve);
    });
  } catch {
    return null;
  }
  canary.port = (server.address() as AddressInfo).port;
  canary.authority = host.includes(':') ? `[${host}]:${canary.port}` : `${host}:${canary.port}`;
  return canary;
}
