// MCP tools through the real tool queue and tool workers (issue #33 item 2): a tool of an MCP
// server over Streamable HTTP on loopback takes the place of the builder's fetch_url_live. Its
// answer is recorded once per call; isError is an is_error result the model reads; an answer off
// the tool's outputSchema is an invalid output, as any tool's is.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcpTools, type McpToolset } from '../../src/tools/mcp-tool/connect-mcp-tools.js';
import { toolImplementations } from '../../src/tools/tool-implementations.js';
import { startToolOutputFleet, type ToolOutputFleet } from '../support/tool-output-fleet.js';
// @ts-expect-error: a plain-JS fixture without types.
import { createBakeryServer } from '../fixtures/mcp/bakery-mcp-server.mjs';

let http: HttpServer;
let harness: ToolOutputFleet;
let toolset: McpToolset;
const requests: string[] = [];
const builtIn = toolImplementations.fetch_url_live;

beforeAll(async () => {
  http = createServer((request, response) => {
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
  harness = await startToolOutputFleet({ label: 'mcptoolqueue', env: { BUILDFLEET_FETCH_ALLOWLIST: origin, BUILDFLEET_KILLSWITCH_MIN_VOLUME: '1000000' } });
  toolset = await connectMcpTools({ server: { url: `${origin}/mcp` }, tools: { lookup_price: { effect: 'read', name: 'fetch_url_live' } } }, { fetchPolicy: { publicBaseUrl: harness.config.BUILDFLEET_SITES_PUBLIC_URL ?? 'http://127.0.0.1:9', allowlist: origin } });
  toolImplementations.fetch_url_live = toolset.tools[0]!;
});
afterAll(async () => {
  toolImplementations.fetch_url_live = builtIn;
  await toolset?.close();
  await harness?.close();
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
});

describe('an MCP tool in the tool queue', () => {
  it('records the server structuredContent once per call', async () => {
    const run = await harness.newRun({ phase: 'verifying', status: 'running' });
    const calls = () => requests.filter((body) => body.includes('"tools/call"')).length;
    const before = calls();
    const result = await harness.callTool(run.id, 'fetch_url_live', { item: 'bread' }, { toolUseId: 'toolu_mcp_once' });
    expect(result).toMatchObject({ is_error: false, output: { item: 'bread', price: 3.5 } });
    expect(await harness.callTool(run.id, 'fetch_url_live', { item: 'bread' }, { toolUseId: 'toolu_mcp_once' })).toEqual(result);
    expect(calls() - before).toBe(1);
  });

  it('answers isError with mcp_tool_error, an input off the server schema with tool_input_invalid, and an answer off its outputSchema as invalid', async () => {
    const run = await harness.newRun({ phase: 'verifying', status: 'running' });
    expect(await harness.callTool(run.id, 'fetch_url_live', { item: 'closed' })).toMatchObject({ is_error: true, error_code: 'mcp_tool_error' });
    expect(await harness.callTool(run.id, 'fetch_url_live', { item: '' })).toMatchObject({ is_error: true, error_code: 'tool_input_invalid' });
    expect(await harness.callTool(run.id, 'fetch_url_live', { item: 'cake' })).toMatchObject({ is_error: true, error_code: 'ToolOutputInvalid', error_reason: 'schema_invalid:(root)' });
  });
});
