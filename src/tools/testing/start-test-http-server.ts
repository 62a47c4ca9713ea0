// Test-only: a real node:http server on 127.0.0.1 with a free port, for the HTTP tools' tests.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TestHttpServer {
  origin: string;
  /** Requests seen, as "METHOD /path". */
  requests: string[];
  close(): Promise<void>;
}

export async function startTestHttpServer(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<TestHttpServer> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
