// GET /v1/agents over HTTP: the site builder as a client sees it — and the tiers it lists are the
// ones a real build is offered, request by request (the simulator's log of the model calls).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

let harness: InProcessFleet;
beforeAll(async () => {
  harness = await startInProcessFleet({ label: 'apiagents' });
}, 60_000);
afterAll(async () => harness?.close());

interface AgentsAnswer {
  agents: Array<{ name: string; default: boolean; phases: Array<{ name: string; tools: string[] }>; tools: Array<{ name: string; effect: string; phases: string[] }>; maxToolsPerRequest: number }>;
}

describe('GET /v1/agents', () => {
  it('lists the site builder: its phases, the tools each offers, and each tool’s effect', async () => {
    const response = await fetch(`${harness.apiUrl}/v1/agents`, { headers: { authorization: `Bearer ${harness.apiKey}` } });
    expect(response.status).toBe(200);
    const { agents } = (await response.json()) as AgentsAnswer;
    expect(agents.map((agent) => [agent.name, agent.default])).toEqual([['site-builder', true]]);
    const [builder] = agents;
    expect(builder!.phases.map((phase) => phase.name)).toEqual(['planning', 'building', 'verifying']);
    expect(builder!.tools.find((tool) => tool.name === 'publish')).toMatchObject({ effect: 'write', phases: ['verifying'] });
    expect(builder!.tools.find((tool) => tool.name === 'read_file')).toMatchObject({ effect: 'read', phases: ['building'] });
    expect(Math.max(...builder!.phases.map((phase) => phase.tools.length))).toBeLessThanOrEqual(builder!.maxToolsPerRequest);

    // A real build is offered exactly these tiers, one per phase.
    const run = await harness.submit({ prompt: 'A website for a bakery called Harbor Lights.' });
    expect((await harness.waitForRun(run.id, 60_000)).status).toBe('succeeded');
    const offered = new Set(
      harness.simulator.requests
        .filter((request) => request.path === '/v1/messages' && request.status === 200 && request.headers['x-buildfleet-run-id'] === run.id)
        .map((request) => JSON.stringify(((request.body as { tools?: Array<{ name: string }> }).tools ?? []).map((tool) => tool.name))),
    );
    expect([...offered].sort()).toEqual(builder!.phases.map((phase) => JSON.stringify(phase.tools)).sort());
  }, 90_000);

  it('needs a key', async () => {
    expect((await fetch(`${harness.apiUrl}/v1/agents`)).status).toBe(401);
  });
});
