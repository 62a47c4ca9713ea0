// Listing an agent's MCP server for its definition (src/agents/agent-registry.ts loadAgent): what
// every role does at start. Apart from agent-implementations.ts, which imports every tool's code
// (Chromium's included), so the API and the model workers list a server without loading it.
import type { McpToolsSpec } from '../../agents/define-agent.js';
import type { FetchTargetPolicy } from '../http/check-fetch-target.js';
import { connectMcpTools } from './connect-mcp-tools.js';

/** Connects, reads each named tool's description and input schema, and closes. */
export async function listMcpServer(spec: McpToolsSpec, { fetchPolicy }: { fetchPolicy: FetchTargetPolicy }) {
  const toolset = await connectMcpTools({ server: spec.server, tools: spec.tools, ...(spec.timeoutMs ? { timeoutMs: spec.timeoutMs } : {}) }, { fetchPolicy });
  try {
    const remoteNames = Object.keys(spec.tools);
    return new Map(
      toolset.tools.map((tool, index) => [
        remoteNames[index] as string,
        {
          description: tool.description,
          inputJsonSchema: toolset.inputJsonSchemas[tool.name] ?? {},
          validator: tool.inputSchema,
        },
      ]),
    );
  } finally {
    await toolset.close();
  }
}
