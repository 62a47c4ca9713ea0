// Every role loads the agents BUILDFLEET_AGENT_MODULES names, at start and before it serves
// anything: a definition that does not check, a module that does not load or an MCP server that
// cannot be listed stops the process there, naming the fault (src/agents/agent-registry.ts), rather
// than a run failing later. The MCP servers are reached through the SSRF guard and the operator's
// allowlist, as every tool's egress is.
import { loadAgentModules, type Agent } from '../agents/index.js';
import { fetchPolicyFor } from '../tools/http/check-fetch-target.js';
import { listMcpServer } from '../tools/mcp-tool/list-mcp-server.js';
import type { FleetContext } from './fleet-context.js';

/** Loads and registers the configured agents; the ones loaded, for the start log. */
export async function loadConfiguredAgents(fleet: Pick<FleetContext, 'config' | 'sitesBaseUrl' | 'logger'>): Promise<Agent[]> {
  const setting = fleet.config.BUILDFLEET_AGENT_MODULES;
  if (setting.trim() === '') return [];
  const fetchPolicy = fetchPolicyFor({ publicBaseUrl: fleet.sitesBaseUrl, config: fleet.config });
  const agents = await loadAgentModules(setting, (spec) => listMcpServer(spec, { fetchPolicy }));
  fleet.logger.info({ event: 'agents-loaded', agents: agents.map((agent) => ({ name: agent.name, fingerprint: agent.fingerprint })) }, 'agents loaded');
  return agents;
}
