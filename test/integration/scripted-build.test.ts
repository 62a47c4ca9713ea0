// A build driven by a scripted conversation (issue #33 item 6a: test an agent without an API key):
// the real fleet — queues, workers, tools, the finish gate — and the simulator answering from a
// script file over HTTP through the real SDK. The script checks the agent's tier at each phase
// (`expect_tools`); a run ends as the script makes it end; a script the agent's requests rule out
// fails the run at once, saying why.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { parseConversationScript, readConversationScript, type ConversationScript } from '../../src/sim/conversation-script.js';
import { expectPublishedSite } from '../support/expect-published-site.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

const HARBOR_LIGHTS = join(import.meta.dirname, '..', 'fixtures', 'scripts', 'harbor-lights.json');

let harness: InProcessFleet | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function runScript(script: ConversationScript, label: string) {
  harness = await startInProcessFleet({ label, simulator: { script } });
  const created = await harness.submit({ prompt: 'A website for a bakery called Harbor Lights.' });
  const run = await harness.waitForRun(created.id, 60_000);
  return { run, trail: await harness.fleet.store.getTrail(run.id), fleet: harness };
}

describe('a scripted build', () => {
  it('plans, writes, deploys and publishes exactly what the script says, in each phase with its tier', async () => {
    const script = readConversationScript(HARBOR_LIGHTS);
    const { run, trail, fleet } = await runScript(script, 'scriptedbuild');
    await expectPublishedSite({ run, sitesUrl: fleet.sitesUrl });
    const page = await fetch(`${fleet.sitesUrl}/sites/${run.id}/`);
    expect(await page.text()).toContain('<h1>Harbor Lights</h1>');
    const scriptedCalls = script.turns.flatMap((turn) => turn.content.flatMap((block) => (block.type === 'tool_use' ? [block.name] : [])));
    expect(trail.map((entry) => `${entry.phase}:${entry.tool}:${entry.ok}`)).toEqual(
      scriptedCalls.map((name, index) => `${index === 0 ? 'planning' : index < 6 ? 'building' : 'verifying'}:${name}:true`),
    );
    // Every model request was answered from the script.
    expect(fleet.simulator.requests.filter((request) => request.path === '/v1/messages' && request.status === 200).map((request) => request.source)).toEqual(script.turns.map(() => 'script'));
  }, 90_000);

  it('meets the finish gate: a finish before the deploy is refused with what is missing, and the script goes on', async () => {
    const whole = readConversationScript(HARBOR_LIGHTS);
    const earlyFinish = { content: [{ type: 'tool_use' as const, name: 'finish_turn', input: { summary: 'Done already.' } }] };
    // The early finish right after the files are written, before deploy.
    const script = { turns: [...whole.turns.slice(0, 2), earlyFinish, ...whole.turns.slice(2)] };
    const { run, trail, fleet } = await runScript(script, 'scriptedgate');
    await expectPublishedSite({ run, sitesUrl: fleet.sitesUrl });
    const finishes = trail.filter((entry) => entry.tool === 'finish_turn');
    expect(finishes.map((entry) => entry.ok)).toEqual([false, true]);
    const refused = await fleet.fleet.store.getStoredToolResult(run.id, finishes[0]!.toolUseId);
    expect(JSON.stringify(refused)).toMatch(/deploy/i);
  }, 90_000);

  it('fails the run at once when the agent does not offer what the script calls, naming the turn', async () => {
    const script = parseConversationScript(JSON.stringify({ turns: [{ content: [{ type: 'tool_use', name: 'write_file', input: { path: 'index.html', content: 'x' } }] }] }), 'inline');
    const { run, trail, fleet } = await runScript(script, 'scriptedrefusal');
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('model_invalid_request_error');
    expect(run.error?.message).toContain('scripted conversation, turn 1 of 1: it calls write_file, which the request does not offer');
    expect(trail).toEqual([]);
    // Refused before admission, once: a 400 is not retried.
    expect(fleet.simulator.requests.filter((request) => request.path === '/v1/messages' && request.status === 400)).toHaveLength(1);
  }, 90_000);
});
