// MCP tools through the real tool queue and tool workers (issue #33 item 2): an agent's tool of an
// MCP server over Streamable HTTP on loopback, called as any tool is. Its
// answer is recorded once per call; isError is an is_error result the model reads; an answer off
// the tool's outputSchema is an invalid output, as any tool's is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, loadAgent, mcpTools, unregisterAgent } from '../../src/agents/index.js';
import { closeAgentImplementations } from '../../src/tools/agent-implementations.js';
import { listMcpServer } from '../../src/tools/mcp-tool/list-mcp-server.js';
import { startBakeryMcpHttpServer, type BakeryMcpHttpServer } from '../support/bakery-mcp-http.js';
import { startToolOutputFleet, type ToolOutputFleet } from '../support/tool-output-fleet.js';

let mcp: BakeryMcpHttpServer;
let harness: ToolOutputFleet;

// An agent whose one tool is the server's: the tool worker connects to the server on the run's
// first call and calls it through that connection, under the input schema the server listed.
beforeAll(async () => {
  mcp = await startBakeryMcpHttpServer();
  harness = await startToolOutputFleet({ label: 'mcptoolqueue', env: { BUILDFLEET_FETCH_ALLOWLIST: mcp.origin, BUILDFLEET_KILLSWITCH_MIN_VOLUME: '1000000' } });
  const fetchPolicy = { publicBaseUrl: 'http://127.0.0.1:9', allowlist: mcp.origin };
  await loadAgent(
    defineAgent({
      name: 'bakery-prices',
      description: 'Prices bakery items.',
      input: z.strictObject({ prompt: z.string() }),
      firstMessage: ({ prompt }) => prompt,
      phases: { pricing: { tools: ['lookup_price'] } },
      tools: [mcpTools({ server: { url: mcp.url }, tools: { lookup_price: { effect: 'read' } } })],
      finishGate: () => [],
      systemPrompt: 'You price bakery items.',
    }),
    (spec) => listMcpServer(spec, { fetchPolicy }),
  );
});
afterAll(async () => {
  await closeAgentImplementations();
  unregisterAgent('bakery-prices');
  await harness?.close();
  await mcp?.close();
});

const pricingRun = () => harness.newRun({ agent: 'bakery-prices', phase: 'pricing', status: 'running' });

describe('an MCP tool in the tool queue', () => {
  it('records the server structuredContent once per call', async () => {
    const run = await pricingRun();
    const calls = () => mcp.requests.filter((body) => body.includes('"tools/call"')).length;
    const before = calls();
    const result = await harness.callTool(run.id, 'lookup_price', { item: 'bread' }, { toolUseId: 'toolu_mcp_once' });
    expect(result).toMatchObject({ is_error: false, output: { item: 'bread', price: 3.5 } });
    expect(await harness.callTool(run.id, 'lookup_price', { item: 'bread' }, { toolUseId: 'toolu_mcp_once' })).toEqual(result);
    expect(calls() - before).toBe(1);
  });

  it('answers isError with mcp_tool_error, an input off the server schema with tool_input_invalid, and an answer off its outputSchema as invalid', async () => {
    const run = await pricingRun();
    expect(await harness.callTool(run.id, 'lookup_price', { item: 'closed' })).toMatchObject({ is_error: true, error_code: 'mcp_tool_error' });
    expect(await harness.callTool(run.id, 'lookup_price', { item: '' })).toMatchObject({ is_error: true, error_code: 'tool_input_invalid' });
    expect(await harness.callTool(run.id, 'lookup_price', { item: 'cake' })).toMatchObject({ is_error: true, error_code: 'ToolOutputInvalid', error_reason: 'schema_invalid:(root)' });
  });
});
