// The agents' public face: what an agent module imports to define an agent, and what the fleet's
// roles use to load and look agents up. docs/agents.md is its manual.
export { defineAgent, defineTool, httpTool, mcpTools, FLEET_TOOLS } from './define-agent.js';
export type {
  AgentDefinition,
  AgentToolSpec,
  FinishView,
  HttpToolSpec,
  McpToolsSpec,
  PhaseSpec,
  PhaseTransition,
  ToolEffect,
  TrailCall,
} from './define-agent.js';
export { atLeast, after, planDone, missingOf, type FinishRule } from './finish-rules.js';
export {
  compileAgent,
  AgentDefinitionError,
  AgentNotServed,
  MAX_TOOLS_PER_REQUEST,
  TYPESCRIPT_TOOL_TIMEOUT_MS,
  isToolTimeout,
  TOOL_TIMEOUT_RULE,
  type Agent,
  type AgentTool,
  type McpListing,
} from './compile-agent.js';
export {
  DEFAULT_AGENT,
  SITE_BUILDER,
  findAgent,
  listAgents,
  registerAgent,
  unregisterAgent,
  loadAgent,
  loadAgentModules,
  type ListMcpServer,
} from './agent-registry.js';
