// MCP tools through the real tool queue and tool workers (issue #33 item 2): a tool of an MCP
// server over Streamable HTTP on loopback takes the place of the builder's fetch_url_live. Its
// answer is recorded once per call; isError is an is_error result the model reads; an answer off
// the tool's outputSchema is an invalid output, as any tool's is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcpTools, type McpToolset } from '../../src/tools/mcp-tool/connect-mcp-tools.js';
import { toolImplementations } from '../../src/tools/tool-implementations.js';
import { startBakeryMcpHttpServer, type BakeryMcpHttpServer } from '../support/bakery-mcp-http.js';
import { startToolOutputFleet, type ToolOutputFleet } from '../support/tool-output-fleet.js';

let mcp: BakeryMcpHttpServer;
let harness: ToolOutputFleet;
let toolset: McpToolset;
const builtIn = toolImplementations.fetch_url_live;

beforeAll(async () => {
  mcp = await startBakeryMcpHttpServer();
  harness = await startToolOutputFleet({ label: 'mcptoolqueue', env: { BUILDFLEET_FETCH_ALLOWLIST: mcp.origin, BUILDFLEET_KILLSWITCH_MIN_VOLUME: '1000000' } });
  const fetchPolicy = { publicBaseUrl: 'http://127.0.0.1:9', allowlist: mcp.origin };
  toolset = await connectMcpTools({ server: { url: mcp.url }, tools: { lookup_price: { effect: 'read', name: 'fetch_url_live' } } }, { fetchPolicy });
  toolImplementations.fetch_url_live = toolset.tools[0]!;
});
afterAll(async () => {
  toolImplementations.fetch_url_live = builtIn;
  await toolset?.close();
  await harness?.close();
  await mcp?.close();
});

describe('an MCP tool in the tool queue', () => {
  it('records the server structuredContent once per call', async () => {
    const run = await harness.newRun({ phase: 'verifying', status: 'running' });
    const calls = () => mcp.requests.filter((body) => body.includes('"tools/call"')).length;
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
