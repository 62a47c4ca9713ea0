// The agents this process serves, by name: the site builder always, and the modules the operator
// names in BUILDFLEET_AGENT_MODULES, each loaded and checked at start (loadAgentModules). Every role
// loads the same list; a run names its agent and the fingerprint of the definition it was created
// with, and a worker whose definition differs refuses the run's jobs instead of running them with
// other tools or another gate (src/agents/agent-of-run.ts).
import { pathToFileURL } from 'node:url';
import { isAbsolute, resolve } from 'node:path';
import { compileAgent, AgentDefinitionError, type Agent, type McpListing } from './compile-agent.js';
import type { AgentDefinition, McpToolsSpec } from './define-agent.js';
import { siteBuilder, SITE_BUILDER } from './site-builder/agent.js';

export { SITE_BUILDER };
export const DEFAULT_AGENT = SITE_BUILDER;

const agents = new Map<string, Agent>([[SITE_BUILDER, compileAgent(siteBuilder)]]);

/** The agent of that name in this process, or undefined. */
export function findAgent(name: string): Agent | undefined {
  return agents.get(name);
}

/** Every agent this process serves, the site builder first. */
export function listAgents(): Agent[] {
  return [...agents.values()];
}

/** Adds an agent; a second, different definition under one name is refused (two modules would
 * otherwise decide by load order which one runs). The same fingerprint again is a no-op. */
export function registerAgent(agent: Agent): Agent {
  const known = agents.get(agent.name);
  if (known && known.fingerprint !== agent.fingerprint) {
    throw new AgentDefinitionError(agent.name, `a different definition of this agent is already loaded (fingerprint ${known.fingerprint})`);
  }
  agents.set(agent.name, agent);
  return agent;
}

/** For tests: forget an agent registered by registerAgent. The site builder stays. */
export function unregisterAgent(name: string): void {
  if (name !== SITE_BUILDER) agents.delete(name);
}

/** Lists what each MCP server of a definition offers (the caller connects: the SDK lives in tools). */
export type ListMcpServer = (spec: McpToolsSpec) => Promise<McpListing>;

/** Checks a definition, listing its MCP servers' tools, and registers the agent. */
export async function loadAgent(definition: AgentDefinition, listMcp: ListMcpServer): Promise<Agent> {
  const listings = new Map<McpToolsSpec, McpListing>();
  for (const spec of definition.tools ?? []) if (spec.kind === 'mcp') listings.set(spec, await listMcp(spec));
  return registerAgent(compileAgent(definition, listings));
}

/** The module's agent: its default export, or its export named `agent`. */
function definitionOf(specifier: string, module: Record<string, unknown>): AgentDefinition {
  const candidate = (module.default ?? module.agent) as AgentDefinition | undefined;
  if (!candidate || typeof candidate !== 'object') {
    throw new AgentDefinitionError(specifier, 'the module exports no agent (export default defineAgent({...}))');
  }
  return candidate;
}

/** BUILDFLEET_AGENT_MODULES, split: paths relative to the working directory, or file: URLs. */
export function agentModuleUrls(setting: string): string[] {
  return setting
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry) => (entry.startsWith('file:') ? entry : pathToFileURL(isAbsolute(entry) ? entry : resolve(entry)).href));
}

/** Imports, checks and registers every module's agent; the first fault throws, naming the module. */
export async function loadAgentModules(setting: string, listMcp: ListMcpServer): Promise<Agent[]> {
  const loaded: Agent[] = [];
  for (const url of agentModuleUrls(setting)) {
    let module: Record<string, unknown>;
    try {
      module = (await import(url)) as Record<string, unknown>;
    } catch (error) {
      throw new AgentDefinitionError(url, `the module did not load: ${error instanceof Error ? error.message : String(error)}`);
    }
    loaded.push(await loadAgent(definitionOf(url, module), listMcp));
  }
  return loaded;
}
