// The order desk's menu server (agent.ts): an MCP server over Streamable HTTP on loopback with one
// tool, lookup_price, whose answer is structured and declared by an outputSchema. Built with the
// official SDK's low-level Server, stateless (a server and a transport per request, as the SDK's
// example serves one). `start` returns its URL; run as a script it serves on PORT (default 8091).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export const MENU: Readonly<Record<string, number>> = { sourdough: 6.5, croissant: 2.4, rye: 5.2, baguette: 3.1 };

const LOOKUP_PRICE = {
  name: 'lookup_price',
  description: 'The price in euros of one item of the bakery menu.',
  inputSchema: { type: 'object', properties: { item: { type: 'string', minLength: 1, maxLength: 60 } }, required: ['item'], additionalProperties: false },
  outputSchema: { type: 'object', properties: { item: { type: 'string' }, price: { type: 'number' } }, required: ['item', 'price'], additionalProperties: false },
} as const;

function menuServer(): Server {
  const server = new Server({ name: 'bakery-menu', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [LOOKUP_PRICE] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const item = String((request.params.arguments ?? {}).item ?? '');
    const price = MENU[item];
    if (request.params.name !== 'lookup_price') return { isError: true, content: [{ type: 'text', text: `no tool ${request.params.name}` }] };
    if (price === undefined) return { isError: true, content: [{ type: 'text', text: `${item} is not on the menu: ${Object.keys(MENU).join(', ')}` }] };
    return { content: [{ type: 'text', text: `${item}: ${price}` }], structuredContent: { item, price } };
  });
  return server;
}

/** An MCP server over stateless Streamable HTTP on loopback: a server and a transport per request,
 * as the SDK's example serves one. Records each request's body (the tests count calls by them). */
export interface McpHttpServer {
  url: string;
  origin: string;
  /** Every request's body, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function serveMcpOverHttp(makeServer: () => { connect(transport: StreamableHTTPServerTransport): Promise<void> }, { port = 0 } = {}): Promise<McpHttpServer> {
  const requests: string[] = [];
  const http = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const text = Buffer.concat(chunks).toString('utf8');
        requests.push(text);
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        await makeServer().connect(transport);
        await transport.handleRequest(request, response, text ? (JSON.parse(text) as unknown) : undefined);
      })().catch(() => response.headersSent || response.writeHead(500).end());
    });
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    url: `${origin}/mcp`,
    origin,
    requests,
    async close() {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

export interface MenuServer extends McpHttpServer {
  /** lookup_price calls answered. */
  calls(): number;
}

export async function startMenuServer({ port = 0 }: { port?: number } = {}): Promise<MenuServer> {
  const served = await serveMcpOverHttp(menuServer, { port });
  return { ...served, calls: () => served.requests.filter((body) => body.includes('"tools/call"')).length };
}
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await startMenuServer({ port: Number(process.env.PORT ?? 8091) });
  console.log(`menu MCP server on ${server.url}`);
}
