// The tests' MCP server (test/fixtures/mcp/bakery-mcp-server.mjs) over Streamable HTTP on a free
// loopback port, served as the example agent's menu server is (examples/order-desk/menu-server.ts).
// @ts-expect-error: a plain-JS fixture without types.
import { createBakeryServer } from '../fixtures/mcp/bakery-mcp-server.mjs';
import { serveMcpOverHttp, type McpHttpServer } from '../../examples/order-desk/menu-server.js';

export type BakeryMcpHttpServer = McpHttpServer;

export async function startBakeryMcpHttpServer(): Promise<BakeryMcpHttpServer> {
  return serveMcpOverHttp(createBakeryServer as () => { connect(transport: unknown): Promise<void> });
}
