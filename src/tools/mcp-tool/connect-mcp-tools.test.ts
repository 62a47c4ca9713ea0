// MCP tools against real MCP servers, through the official SDK: one over Streamable HTTP on
// loopback (behind the SSRF guard and the allowlist), one over stdio (a child process). The tools
// the definition names are offered with the server's input schema, renamed where asked; a call's
// input is checked before it is sent; isError, an answer off its outputSchema and a missing tool
// each end as the fleet's own errors do.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { ToolOutputInvalid } from '../output/tool-output-invalid.js';
import { connectMcpTools, type McpToolset } from './connect-mcp-tools.js';
import { startBakeryMcpHttpServer, type BakeryMcpHttpServer } from '../../../test/support/bakery-mcp-http.js';

let http: BakeryMcpHttpServer;
let origin: string;
let harness: ToolTestHarness;
const opened: McpToolset[] = [];

beforeAll(async () => {
  http = await startBakeryMcpHttpServer();
  origin = http.origin;
  harness = await createToolTestHarness('mcptools');
});
afterAll(async () => {
  await Promise.all(opened.map((toolset) => toolset.close()));
  await http.close();
  await harness.close();
});

const policy = () => ({ publicBaseUrl: 'http://127.0.0.1:9', allowlist: origin });
const CHOICES = { lookup_price: { effect: 'read' as const, name: 'price_of', description: 'What one item costs.' }, save_note: { effect: 'write' as const } };

async function connected(server: { url: string } | { command: string; args: string[] }): Promise<McpToolset> {
  const toolset = await connectMcpTools({ server, tools: CHOICES }, { fetchPolicy: policy() });
  opened.push(toolset);
  return toolset;
}

async function context() {
  const run = await harness.store.createRun({ tenant: 'bakery', prompt: 'a bakery', model: 'test-model', maxTurns: 10, maxTokens: 1024, options: {} });
  return harness.contextFor(run.id);
}

describe.each([
  ['Streamable HTTP', () => ({ url: `${origin}/mcp` })],
  ['stdio', () => ({ command: process.execPath, args: [join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'mcp', 'bakery-mcp-server.mjs')] })],
])('MCP tools over %s', (_transport, server) => {
  it('offers the named tools with the server schema, renamed and re-described as asked', async () => {
    const toolset = await connected(server());
    expect(toolset.tools.map((tool) => [tool.name, tool.description, tool.writes, tool.idempotent])).toEqual([
      ['price_of', 'What one item costs.', false, true],
      ['save_note', 'Saves a note.', true, false],
    ]);
    expect(toolset.inputJsonSchemas.price_of).toMatchObject({ required: ['item'], additionalProperties: false });
    // The input is checked against the server's schema before anything is sent.
    expect(toolset.tools[0]!.inputSchema.safeParse({ item: 'bread' }).success).toBe(true);
    expect(toolset.tools[0]!.inputSchema.safeParse({ item: '' }).success).toBe(false);
    expect(toolset.tools[0]!.inputSchema.safeParse({ item: 'bread', extra: 1 }).success).toBe(false);
  });

  it('answers with structuredContent, or the text when the tool declares no output schema', async () => {
    const [price, note] = (await connected(server())).tools;
    expect(await harness.call(price!, { item: 'bread' }, await context())).toEqual({ item: 'bread', price: 3.5 });
    expect(await harness.call(note!, { text: 'buy flour' }, await context())).toEqual({ content: ['saved: buy flour'] });
  });

  it('turns isError into mcp_tool_error and an answer off its outputSchema into an invalid output', async () => {
    const [price] = (await connected(server())).tools;
    // The server's text is quoted as data: its markup cannot pass for the fleet's.
    await expect(harness.call(price!, { item: 'closed' }, await context())).rejects.toMatchObject({ code: 'mcp_tool_error', message: 'price_of failed: "The shop is \\u003cb\\u003eclosed\\u003c/b\\u003e today."' });
    const invalid = await harness.call(price!, { item: 'cake' }, await context()).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(ToolOutputInvalid);
    expect(invalid).toMatchObject({ reason: 'schema_invalid:(root)' });
    const bare = await harness.call(price!, { item: 'pie' }, await context()).catch((error: unknown) => error);
    expect(bare).toBeInstanceOf(ToolOutputInvalid);
    expect(bare).toMatchObject({ reason: 'schema_invalid:(root)', message: expect.stringContaining('did not return structured content') });
  });
});

describe('connecting to an MCP server', () => {
  it('refuses a tool the server does not list, naming what it lists', async () => {
    await expect(connectMcpTools({ server: { url: `${origin}/mcp` }, tools: { bake: { effect: 'write' } } }, { fetchPolicy: policy() })).rejects.toThrow(
      /has no tool bake \(it lists: lookup_price, save_note, unused\)/,
    );
  });

  it('reaches a loopback server only when it is allowlisted (the SSRF guard)', async () => {
    await expect(connectMcpTools({ server: { url: `${origin}/mcp` }, tools: CHOICES }, { fetchPolicy: { ...policy(), allowlist: '' } })).rejects.toMatchObject({ code: 'fetch_blocked' });
  });

  it('names a stdio server as the calls upstream, and an HTTP server by its URL', async () => {
    const overHttp = await connected({ url: `${origin}/mcp` });
    expect(overHttp.tools[0]!.serviceUrl).toBe(`${origin}/mcp`);
    const overStdio = await connected({ command: process.execPath, args: [join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'mcp', 'bakery-mcp-server.mjs')] });
    expect(overStdio.tools[0]!.serviceUrl).toBe('stdio://stdio-node');
  });
});
