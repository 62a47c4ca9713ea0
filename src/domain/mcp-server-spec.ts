// Where an MCP server is, as an agent's definition declares it (src/agents/define-agent.ts) and
// the fleet's MCP client connects to it (src/tools/mcp-tool/connect-mcp-tools.ts): a Streamable
// HTTP endpoint, or a command whose stdio speaks MCP. Here so the definition, which the model
// worker loads, need not import the client, which tool workers run.
export type McpServerSpec = { url: string } | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string };
