// The implementation part of every agent this tool worker serves (define-agent.ts): for each of an
// agent's tools, what runs a call. The fleet's own tools are tool-implementations.ts; an agent's
// TypeScript tools come from the module its definition names (imported here, by the tool worker
// only); an HTTP tool is made from its spec (define-http-tool.ts); an agent's MCP servers are
// connected once per process and their tools called through that connection.
//
// Loaded on a run's first call of the agent in this process and kept: a module that fails to load
// or lacks a tool fails that load loudly (an AgentDefinitionError) and is tried again on the next
// call, instead of running with a tool missing. Lookups read the module's map at call time, so a
// test that swaps one implementation (tool-output-contracts.test.ts) is seen.
import type { Agent, AgentTool } from '../agents/index.js';
import { AgentDefinitionError, isToolTimeout, TOOL_TIMEOUT_RULE } from '../agents/index.js';
import type { McpToolsSpec } from '../agents/define-agent.js';
import { defineHttpTool } from './http-tool/define-http-tool.js';
import { connectMcpTools, type McpToolset } from './mcp-tool/connect-mcp-tools.js';
import type { FetchTargetPolicy } from './http/check-fetch-target.js';
import { toolImplementations } from './tool-implementations.js';
import type { ToolImplementation } from './tool-types.js';

type ImplementationMap = Record<string, ToolImplementation | undefined>;

interface LoadedAgent {
  fingerprint: string;
  typescript: ImplementationMap | null;
  http: Map<string, ToolImplementation>;
  mcp: Map<McpToolsSpec, McpToolset>;
}

const loaded = new Map<string, Promise<LoadedAgent>>();

async function importImplementations(agent: Agent): Promise<ImplementationMap | null> {
  const url = agent.definition.implementations;
  if (!url) return null;
  let module: { default?: unknown };
  try {
    module = (await import(url)) as { default?: unknown };
  } catch (error) {
    throw new AgentDefinitionError(agent.name, `its implementations module ${url} did not load: ${error instanceof Error ? error.message : String(error)}`);
  }
  const map = module.default;
  if (!map || typeof map !== 'object') throw new AgentDefinitionError(agent.name, `its implementations module ${url} has no default export of tools by name`);
  for (const tool of agent.tools.values()) {
    if (tool.source !== 'typescript') continue;
    const implementation = (map as ImplementationMap)[tool.name];
    if (!implementation || typeof implementation.execute !== 'function') {
      throw new AgentDefinitionError(agent.name, `its implementations module ${url} has no implementation of ${tool.name}`);
    }
    const disagreement = disagreementOf(tool, implementation);
    if (disagreement) throw new AgentDefinitionError(agent.name, `tool ${tool.name}: ${disagreement} (its implementation in ${url})`);
  }
  return map as ImplementationMap;
}

/** Where a TypeScript tool's implementation says otherwise than its definition on what the fleet's
 * guarantees rest on: a write the kill switch would not see, a retry the definition forbids. */
function disagreementOf(tool: AgentTool, implementation: ToolImplementation): string | null {
  if (implementation.writes !== (tool.effect === 'write')) {
    return `the definition declares effect "${tool.effect}" but the implementation ${implementation.writes ? 'writes' : 'does not write'}`;
  }
  const declared = tool.typescript ?? {};
  if (declared.idempotent !== undefined && declared.idempotent !== implementation.idempotent) {
    return `the definition declares idempotent: ${declared.idempotent} but the implementation ${implementation.idempotent}`;
  }
  if (implementation.timeoutMs !== undefined && !isToolTimeout(implementation.timeoutMs)) {
    return `the implementation's ${TOOL_TIMEOUT_RULE}, not ${implementation.timeoutMs}`;
  }
  return null;
}

/** The implementation as the definition declares it: the model's name, description and input
 * schema, and the definition's timeout and output contract over the implementation's. */
function asDeclared(tool: AgentTool, implementation: ToolImplementation): ToolImplementation {
  const timeoutMs = tool.typescript?.timeoutMs ?? implementation.timeoutMs;
  return {
    ...implementation,
    name: tool.name,
    description: tool.description,
    inputSchema: tool.input,
    output: tool.typescript?.output ?? implementation.output,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  };
}

function httpImplementation(tool: AgentTool): ToolImplementation {
  const spec = tool.http as NonNullable<AgentTool['http']>;
  return defineHttpTool({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.input,
    url: spec.url,
    effect: tool.effect,
    output: spec.output,
    ...(spec.timeoutMs !== undefined ? { timeoutMs: spec.timeoutMs } : {}),
  });
}

async function load(agent: Agent, fetchPolicy: FetchTargetPolicy): Promise<LoadedAgent> {
  const http = new Map<string, ToolImplementation>();
  const mcp = new Map<McpToolsSpec, McpToolset>();
  for (const tool of agent.tools.values()) {
    if (tool.source === 'http') http.set(tool.name, httpImplementation(tool));
    if (tool.source === 'mcp' && tool.mcp && !mcp.has(tool.mcp.spec)) {
      const { spec } = tool.mcp;
      mcp.set(
        spec,
        await connectMcpTools(
          { server: spec.server, tools: spec.tools, ...(spec.timeoutMs ? { timeoutMs: spec.timeoutMs } : {}), ...(spec.mode ? { mode: spec.mode } : {}) },
          { fetchPolicy },
        ),
      );
    }
  }
  return { fingerprint: agent.fingerprint, typescript: await importImplementations(agent), http, mcp };
}

/** What runs a call of `name` for a run of `agent`; undefined for a tool the agent does not have. */
export async function implementationOf(
  agent: Agent,
  name: string,
  { fetchPolicy }: { fetchPolicy: FetchTargetPolicy },
): Promise<ToolImplementation | undefined> {
  const tool = agent.tools.get(name);
  if (!tool) return undefined;
  if (tool.source === 'fleet') return toolImplementations[name as keyof typeof toolImplementations];
  let entry = loaded.get(agent.name);
  const current = entry ? await entry.catch(() => null) : null;
  if (!current || current.fingerprint !== agent.fingerprint) {
    entry = load(agent, fetchPolicy);
    loaded.set(agent.name, entry);
    entry.catch(() => loaded.delete(agent.name));
  }
  const implementations = await (entry as Promise<LoadedAgent>);
  if (tool.source === 'typescript') {
    const implementation = implementations.typescript?.[name];
    return implementation && asDeclared(tool, implementation);
  }
  if (tool.source === 'http') return implementations.http.get(name);
  const toolset = tool.mcp ? implementations.mcp.get(tool.mcp.spec) : undefined;
  return toolset?.tools.find((candidate) => candidate.name === name);
}

/** Closes every MCP connection this process opened (a tool worker's shutdown). */
export async function closeAgentImplementations(): Promise<void> {
  const entries = [...loaded.values()];
  loaded.clear();
  for (const entry of entries) {
    const agent = await entry.catch(() => null);
    for (const toolset of agent?.mcp.values() ?? []) await toolset.close().catch(() => undefined);
  }
}
