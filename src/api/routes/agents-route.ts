// GET /v1/agents: the agents this fleet runs, as a client or an operator needs to know them before
// submitting — their phases in order, the tools each phase offers the model (its tier), and each
// tool's effect (`write` tools are the ones the kill switch and skip_writes safe mode refuse). The
// site builder and every agent BUILDFLEET_AGENT_MODULES loads (src/agents); the answer is read from
// the compiled agents, the same objects the turns use, so it cannot drift from what a run is offered.
import { z } from 'zod';
import { DEFAULT_AGENT, listAgents, type Agent } from '../../agents/index.js';
import { defineRoute } from '../define-route.js';

const agentSchema = z.object({
  name: z.string(),
  description: z.string(),
  default: z.boolean().describe('Runs submitted without an agent run this one'),
  phases: z
    .array(z.object({ name: z.string(), tools: z.array(z.string()).describe('The tools the model is offered in this phase, in order') }))
    .describe('In the order a run goes through them'),
  tools: z.array(
    z.object({
      name: z.string(),
      description: z.string().describe('As the model reads it'),
      effect: z.enum(['read', 'write']).describe('write: refused by the kill switch and skip_writes safe mode'),
      kind: z.enum(['fleet', 'typescript', 'http', 'mcp']).describe("fleet: one of the fleet's own tools; else how the agent's tool runs"),
      phases: z.array(z.string()).describe('The phases that offer it'),
    }),
  ),
  maxToolsPerRequest: z.int().describe('The most tools any phase offers in one model request'),
  fingerprint: z.string().describe('A hash of the definition; roles serving one agent must agree on it'),
});
const agentsSchema = z.object({ agents: z.array(agentSchema) }).describe('The agents this fleet runs');
type AgentsView = z.infer<typeof agentsSchema>;

/** An agent as GET /v1/agents describes it. */
export function agentView(agent: Agent): AgentsView['agents'][number] {
  return {
    name: agent.name,
    description: agent.description,
    default: agent.name === DEFAULT_AGENT,
    phases: agent.phases.map((phase) => ({ name: phase, tools: [...agent.tier(phase)] })),
    tools: agent.everyTool.map((name) => {
      const tool = agent.tools.get(name) as NonNullable<ReturnType<Agent['tools']['get']>>;
      return {
        name,
        description: tool.description,
        effect: tool.effect,
        kind: tool.source,
        phases: agent.phases.filter((phase) => agent.tier(phase).includes(name)),
      };
    }),
    maxToolsPerRequest: Math.max(...agent.phases.map((phase) => agent.tier(phase).length)),
    fingerprint: agent.fingerprint,
  };
}

export function agentsRoute() {
  return defineRoute({
    method: 'GET',
    url: '/v1/agents',
    operationId: 'listAgents',
    summary: 'The agents this fleet runs',
    description:
      'Each agent this fleet runs: its phases in order with the tools each offers the model, and ' +
      'every tool with its description and effect (`write` tools are refused by the kill switch and ' +
      'skip_writes safe mode). The site builder (`site-builder`, the default) and every agent ' +
      '`BUILDFLEET_AGENT_MODULES` loads (docs/agents.md). ' +
      'Needs the `runs:read` scope.',
    tags: ['runs'],
    access: 'runs:read',
    responses: { 200: { description: 'The agents', schema: agentsSchema } },
    errors: [],
    async handler(): Promise<AgentsView> {
      return { agents: listAgents().map(agentView) };
    },
  });
}
