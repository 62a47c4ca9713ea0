// An agent with more tools than one strict request may carry ("A request can have at most 20 strict
// tools", docs strict-tool-use; the simulator refuses more with a 400): on a model that takes
// mid-conversation tool changes every tool is declared in one request, so the fleet sends that
// request without strict tool use rather than one the API refuses — and with it where it fits.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileAgent, defineAgent, defineTool, registerAgent, unregisterAgent } from '../../src/agents/index.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

function agentOf(name: string, toolsPerPhase: number) {
  const phases = ['first', 'second', 'third'];
  const tools = phases.flatMap((phase) =>
    Array.from({ length: toolsPerPhase }, (_, index) => defineTool({ name: `${phase}_${index}`, description: 'A tool.', input: z.strictObject({}), effect: 'read' })),
  );
  return compileAgent(
    defineAgent({
      name,
      description: 'Many tools.',
      input: z.strictObject({ prompt: z.string() }),
      firstMessage: ({ prompt }) => prompt,
      phases: Object.fromEntries(phases.map((phase) => [phase, { tools: tools.filter((tool) => tool.name.startsWith(phase)).map((tool) => tool.name) }])),
      tools,
      transitions: [
        { from: 'first', on: 'first_0', to: 'second' },
        { from: 'second', on: 'second_0', to: 'third' },
      ],
      finishGate: () => [],
      systemPrompt: 'You have many tools.',
      implementations: 'file:///never-loaded.js',
    }),
  );
}

const script = { turns: [{ content: [{ type: 'tool_use' as const, name: 'finish_turn', input: { summary: 'Done.' } }] }, { content: [{ type: 'text' as const, text: 'Done.' }] }] };

let harness: InProcessFleet | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});
afterAll(() => {
  unregisterAgent('many-tools');
  unregisterAgent('fewer-tools');
});

describe('an agent of more than 20 tools on a model with tool changes and strict tool use', () => {
  it.each([
    ['many-tools', 8, false],
    ['fewer-tools', 6, true],
  ] as const)('%s (%i tools a phase): runs, its one request strict only if it fits', async (name, toolsPerPhase, strict) => {
    registerAgent(agentOf(name, toolsPerPhase));
    harness = await startInProcessFleet({ label: `agent${name.replace('-', '')}`, simulator: { script }, env: { BUILDFLEET_MODEL: 'claude-sonnet-5-5' } });
    const created = await harness.submit({ agent: name, prompt: 'go' });
    const run = await harness.waitForRun(created.id, 60_000);
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded');
    const requests = harness.simulator.requests.filter((request) => request.path === '/v1/messages' && request.status === 200);
    expect(requests).toHaveLength(2);
    const tools = (requests[0]!.body as { tools: Array<{ name: string; strict?: boolean; defer_loading?: boolean }> }).tools;
    // Every tool declared once (3 phases' tools and finish_turn), the later phases' deferred.
    expect(tools).toHaveLength(3 * toolsPerPhase + 1);
    expect(tools.filter((tool) => tool.defer_loading)).toHaveLength(3 * toolsPerPhase);
    expect(tools.every((tool) => (tool.strict === true) === strict)).toBe(true);
  }, 90_000);
});
