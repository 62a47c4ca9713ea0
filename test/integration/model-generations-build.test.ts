// A whole build on each current model generation, with and without a thinking/effort choice,
// through the real queues and the simulator with each generation's rules (src/sim/model-catalog.ts,
// written independently of the fleet's catalog): it answers 400 to a forced tool_choice on the
// models that refuse one, to `disabled` where thinking cannot be turned off, to an effort the model
// does not take, and to a thinking block that comes back altered, dropped or moved. So a build
// passes here only if the turn protocol follows the model's capabilities (docs/models.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/sim/simulator-server.js';
import type { ThinkingRequest } from '../../src/domain/resolve-run-model-settings.js';
import { expectPublishedSite } from '../support/expect-published-site.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

let harness: InProcessFleet;
beforeAll(async () => {
  harness = await startInProcessFleet({ label: 'generations', modelWorkers: 2, toolWorkers: 2 });
});
afterAll(async () => {
  await harness?.close();
});

interface SentBody {
  model: string;
  thinking?: { type: string; display?: string; budget_tokens?: number };
  output_config?: { effort?: string };
  tool_choice?: { type: string };
  messages: Array<{ role: string; content: string | Array<{ type: string; thinking?: string; signature?: string }> }>;
}

const requestsOf = (runId: string): RecordedRequest[] =>
  harness.simulator.requests.filter((request) => request.path.startsWith('/v1/messages') && request.headers['x-buildfleet-run-id'] === runId);

const CASES: Array<{ model: string; thinking?: ThinkingRequest; expected: { thinking: string; effort: string | null; display: string | null; forcedPlan: boolean } }> = [
  { model: 'claude-sonnet-5-5', expected: { thinking: 'adaptive', effort: null, display: 'updates', forcedPlan: false } },
  { model: 'claude-sonnet-5-5', thinking: { enabled: false, effort: 'low' }, expected: { thinking: 'between_tools', effort: 'low', display: null, forcedPlan: false } },
  { model: 'claude-opus-5-5', expected: { thinking: 'adaptive', effort: null, display: 'updates', forcedPlan: false } },
  { model: 'claude-opus-5-5', thinking: { effort: 'high' }, expected: { thinking: 'adaptive', effort: 'high', display: 'updates', forcedPlan: false } },
  { model: 'claude-haiku-5-5', expected: { thinking: 'adaptive', effort: null, display: 'omitted', forcedPlan: false } },
  { model: 'claude-haiku-5-5', thinking: { enabled: false, effort: 'medium' }, expected: { thinking: 'off', effort: 'medium', display: null, forcedPlan: true } },
  { model: 'claude-sonnet-4-6', expected: { thinking: 'off', effort: null, display: null, forcedPlan: true } },
  { model: 'claude-sonnet-4-6', thinking: { budgetTokens: 2048, effort: 'medium' }, expected: { thinking: 'manual', effort: 'medium', display: 'summarized', forcedPlan: false } },
];

describe('a whole build on every current generation', () => {
  it.each(CASES)('$model with thinking $thinking: succeeds with a published site, the protocol following the model', async ({ model, thinking, expected }) => {
    const created = await harness.submit({ prompt: 'Build a small website for a bakery called Harbor Lights.', model, ...(thinking ? { thinking } : {}) });
    expect(created).toMatchObject({ model, thinking: expected.thinking, effort: expected.effort, thinkingDisplay: expected.display });
    const run = await harness.waitForRun(created.id, 60_000);
    expect(run.error).toBeNull();
    const requests = requestsOf(run.id);
    const refused = requests.filter((request) => request.status >= 400);
    expect(refused.map((request) => `${request.status}: ${JSON.stringify(request.body).slice(0, 300)}`), 'the simulator refused a request').toEqual([]);
    await expectPublishedSite({ run, sitesUrl: harness.sitesUrl });
    // The site is the one asked for, whatever the fleet added to the first message (the plan-first
    // instruction where the plan cannot be forced, whose quoted "build" once named every such site).
    const home = await (await fetch(`${harness.sitesUrl}/sites/${run.id}/`)).text();
    expect(home).toContain('<title>Harbor Lights</title>');

    const bodies = requests.map((request) => request.body as SentBody);
    // The plan is forced only where the model accepts forcing and the run does not think; elsewhere
    // it is asked for in words and the planning tier still makes it come first.
    expect(bodies[0]?.tool_choice?.type ?? 'auto').toBe(expected.forcedPlan ? 'tool' : 'auto');
    if (!expected.forcedPlan) expect(JSON.stringify(bodies[0]?.messages[0])).toContain('Start by calling todo_write');
    const trail = await harness.fleet.store.getTrail(run.id);
    const plan = trail.findIndex((entry) => entry.tool === 'todo_write' && entry.ok);
    const firstBuild = trail.findIndex((entry) => entry.phase === 'building');
    expect(plan).toBeGreaterThanOrEqual(0);
    expect(plan).toBeLessThan(firstBuild);
    for (const body of bodies) {
      expect(body.model).toBe(model);
      expect(body.output_config?.effort ?? null).toBe(expected.effort);
      if (expected.thinking === 'between_tools') expect(body.thinking).toEqual({ type: 'between_tools' });
      if (expected.display === 'updates') expect(body.thinking).toEqual({ type: 'adaptive', display: 'updates' });
    }
    // Thinking blocks went back: the simulator verifies each one's signature against the model and
    // the conversation prefix, so an altered, dropped or moved block would have been a 400 above.
    const thinkingSent = bodies.flatMap((body) =>
      body.messages.filter((message) => message.role === 'assistant' && Array.isArray(message.content)).flatMap((message) => (message.content as Array<{ type: string }>).filter((block) => block.type === 'thinking')),
    );
    if (expected.thinking === 'adaptive' || expected.thinking === 'manual') expect(thinkingSent.length).toBeGreaterThan(0);
  }, 90_000);
});
