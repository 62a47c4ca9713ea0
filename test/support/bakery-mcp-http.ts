// The tests' MCP server (test/fixtures/mcp/bakery-mcp-server.mjs) over Streamable HTTP on a free
// loopback port: stateless, a server and a transport per request, as the SDK's own example serves
// one. Records each request's body, for tests that count calls.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
// @ts-expect-error: a plain-JS fixture without types.
import { createBakeryServer } from '../fixtures/mcp/bakery-mcp-server.mjs';

export interface BakeryMcpHttpServer {
  origin: string;
  /** The MCP endpoint: `${origin}/mcp`. */
  url: string;
  /** Every request's body, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startBakeryMcpHttpServer(): Promise<BakeryMcpHttpServer> {
  const requests: string[] = [];
  const http = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const text = Buffer.concat(chunks).toString('utf8');
        requests.push(text);
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        await (createBakeryServer as () => { connect(transport: unknown): Promise<void> })().connect(transport);
        await transport.handleRequest(request, response, text ? (JSON.parse(text) as unknown) : undefined);
      })();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    origin,
    url: `${origin}/mcp`,
    requests,
    async close() {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
