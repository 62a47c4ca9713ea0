// GET /v1/agents: the agents this fleet runs, as a client or an operator needs to know them before
// submitting — their phases in order, the tools each phase offers the model (its tier), and each
// tool's effect (`write` tools are the ones the kill switch and skip_writes safe mode refuse). Today
// the fleet runs one agent, the site builder (docs/agents.md says what is coming); the answer is
// read from its profile (src/domain/profile.ts) and the tools' descriptions, so it cannot drift
// from what a run is offered.
import { z } from 'zod';
import { PHASES, toolsForPhase, WRITE_TOOLS, ALL_TOOLS, MAX_TOOLS_PER_REQUEST } from '../../domain/profile.js';
import { toolDescriptions } from '../../tools/tool-definitions.js';
import { defineRoute } from '../define-route.js';

/** The agent every run of this fleet runs. */
export const SITE_BUILDER_AGENT = 'site-builder';

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
      phases: z.array(z.string()).describe('The phases that offer it'),
    }),
  ),
  maxToolsPerRequest: z.int().describe('The most tools any phase offers in one model request'),
});
const agentsSchema = z.object({ agents: z.array(agentSchema) }).describe('The agents this fleet runs');
type AgentsView = z.infer<typeof agentsSchema>;

/** The site builder, as GET /v1/agents describes it. */
export function siteBuilderView(): AgentsView['agents'][number] {
  return {
    name: SITE_BUILDER_AGENT,
    description: 'Plans, writes, deploys, verifies and publishes a website from a prompt.',
    default: true,
    phases: PHASES.map((phase) => ({ name: phase, tools: [...toolsForPhase(phase)] })),
    tools: ALL_TOOLS.map((tool) => ({
      name: tool,
      description: toolDescriptions[tool],
      effect: WRITE_TOOLS.has(tool) ? 'write' : 'read',
      phases: PHASES.filter((phase) => toolsForPhase(phase).includes(tool)),
    })),
    maxToolsPerRequest: MAX_TOOLS_PER_REQUEST,
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
      'skip_writes safe mode). Today one agent, `site-builder`, the default (docs/agents.md). ' +
      'Needs the `runs:read` scope.',
    tags: ['runs'],
    access: 'runs:read',
    responses: { 200: { description: 'The agents', schema: agentsSchema } },
    errors: [],
    async handler(): Promise<AgentsView> {
      return { agents: [siteBuilderView()] };
    },
  });
}
