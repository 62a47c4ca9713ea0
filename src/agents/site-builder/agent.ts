// The site builder, written as an agent with the public API (define-agent.ts) like any other. Its
// tools are declared once each in src/domain/site-builder-tools.ts (phase, effect, description,
// input schema, implementation file) and its finish gate in src/domain/finish-gate.ts: in the
// domain because the simulator, which may import only the domain, plays the builder from the same
// entries; this file is where they become an agent. Adding a tool to the builder is its entry there
// and its implementation file — nothing here (docs/agents.md#the-site-builder).
import { z } from 'zod';
import { evaluateFinishGate } from '../../domain/finish-gate.js';
import { PHASES, toolsForPhase } from '../../domain/profile.js';
import { SITE_BUILDER_TOOLS } from '../../domain/site-builder-tools.js';
import { defineAgent, defineTool } from '../define-agent.js';

export const SITE_BUILDER = 'site-builder';

/** The builder's own part of the system prompt; the fleet adds its rules and the phase. */
const BUILDER_PROMPT = [
  'You are a website builder agent. You plan, write, deploy, verify and publish a small static website.',
  'Workflow: 1) plan with todo_write (todos with phase "build" and "verify"); 2) set colors and fonts,',
  'write at least three files (HTML and CSS), deploy, then todo_complete every build todo;',
  '3) on the live deployment: fetch_url_live, check_broken_images, set_meta, publish, then',
  'todo_complete every verify todo; 4) call finish_turn; 5) give a short final summary.',
  'Tools change between phases: you only see the tools of the current phase.',
].join('\n');

export const siteBuilder = defineAgent({
  name: SITE_BUILDER,
  description: 'Plans, writes, deploys, verifies and publishes a small static website from a prompt.',
  // Visible text: a prompt of spaces or invisible characters alone would be queued and fail at the
  // first model call (the Messages API refuses a text block of whitespace only).
  input: z.strictObject({
    prompt: z
      .string()
      .min(1)
      .regex(/[^\s\p{Cf}]/u, 'has no visible text'),
  }),
  firstMessage: ({ prompt }) => prompt,
  phases: Object.fromEntries(PHASES.map((phase) => [phase, { tools: toolsForPhase(phase) }])),
  tools: Object.entries(SITE_BUILDER_TOOLS).map(([name, { description, input, effect }]) => defineTool({ name, description, input, effect })),
  transitions: [
    { from: 'planning', on: 'todo_write', to: 'building' },
    // The last build todo done moves the run on; verify todos are done on the live site.
    { from: 'building', on: 'todo_complete', to: 'verifying', when: ({ todos }) => todos.filter((todo) => todo.phase === 'build').every((todo) => todo.done) },
  ],
  planFirst: true,
  finishGate: (view) => evaluateFinishGate(view).missing,
  systemPrompt: BUILDER_PROMPT,
  // The builder's implementation part: the module tool workers already run its tools from.
  implementations: new URL('../../tools/tool-implementations.js', import.meta.url).href,
});

/** The module's agent, as BUILDFLEET_AGENT_MODULES and `buildfleet agent check` load one. */
export default siteBuilder;
