// A build through the real queues: simulator over HTTP via the SDK, real Redis, real API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TOOLS_PER_REQUEST } from '../../src/domain/profile.js';
import { runModelTurn } from '../../src/agent/run-model-turn.js';
import { createProviderRegistry } from '../../src/providers/provider-registry.js';
import { createTextRecovery } from '../../src/agent/text-recovery.js';
import type { TranscriptMessage } from '../../src/domain/model-message.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

let harness: InProcessFleet;

beforeAll(async () => {
  // Strict tools off: with strict tool use a model's calls are native by construction (the
  // simulator never writes a strict tool's call as text), and this file's text-call tests need
  // the calls written as text that models without strict tools (and open models) still write.
  harness = await startInProcessFleet({ label: 'build', env: { BUILDFLEET_STRICT_TOOLS: 'false' } });
});
afterAll(async () => {
  await harness?.close();
});

describe('a build job end to end', () => {
  it('plans, writes, deploys, verifies and publishes a site the API serves', async () => {
    const created = await harness.submit({ prompt: 'Build a small bakery website.' });
    const run = await harness.waitForRun(created.id);
    expect(run.error).toBeNull();
    expect(run.status).toBe('succeeded');
    expect(run.finishVerified).toBe(true);
    expect(run.result?.length ?? 0).toBeGreaterThan(0);
    expect(run.todos.every((todo) => todo.done)).toBe(true);
    const files = await harness.fleet.store.listFiles(run.id);
    expect(files.filter((file) => file.path.endsWith('.html') || file.path.endsWith('.css')).length).toBeGreaterThanOrEqual(3);
    expect(run.liveDeploy).not.toBeNull();

    // Served on the sites origin (its own port), never by the API.
    const page = await fetch(`${harness.sitesUrl}/sites/${run.id}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/^sandbox allow-scripts/);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('<html');

    const status = (await (await fetch(`${harness.apiUrl}/v1/runs/${run.id}`, { headers: { authorization: `Bearer ${harness.apiKey}` } })).json()) as { status: string; deployment: { live: { url: string } } };
    expect(status.status).toBe('succeeded');
    expect(status.deployment.live.url).toBe(`${harness.sitesUrl}/sites/${run.id}/`);
  });

  it('never sends more than 13 tools, forces the plan first, and answers every tool_use verbatim', async () => {
    const created = await harness.submit({});
    const run = await harness.waitForRun(created.id);
    expect(run.status).toBe('succeeded');
    const requests = harness.simulator.requests.filter((request) => request.headers['x-buildfleet-run-id'] === run.id);
    expect(requests.length).toBeGreaterThan(5);
    for (const request of requests) {
      expect(request.status).toBe(200);
      expect((request.body as { tools?: unknown[] }).tools?.length ?? 0).toBeLessThanOrEqual(MAX_TOOLS_PER_REQUEST);
    }
    expect((requests[0]?.body as { tool_choice?: unknown }).tool_choice).toEqual({ type: 'tool', name: 'todo_write' });

    const transcript = (await harness.fleet.store.getMessages(run.id)) as TranscriptMessage[];
    for (let index = 0; index < transcript.length; index += 1) {
      const message = transcript[index]!;
      if (message.role !== 'assistant') continue;
      const ids = message.content.filter((block) => block.type === 'tool_use').map((block) => (block as { id: string }).id);
      if (ids.length === 0) continue;
      const next = transcript[index + 1];
      expect(next?.role).toBe('user');
      const answered = (next!.content as Array<{ type: string; tool_use_id?: string }>)
        .filter((block) => block.type === 'tool_result')
        .map((block) => block.tool_use_id);
      expect(answered.sort()).toEqual([...ids].sort());
    }
  });

  it('stores a model answer once: re-running a finished turn makes no second model call', async () => {
    const created = await harness.submit({});
    const run = await harness.waitForRun(created.id);
    const before = harness.simulator.requests.length;
    const result = await runModelTurn(
      {
        store: harness.fleet.store,
        queues: harness.fleet.queues,
        providers: createProviderRegistry({ config: harness.config }),
        config: harness.config,
        logger: harness.fleet.logger,
        recover: createTextRecovery(),
      },
      { runId: run.id, turn: 2, trace: {} },
      { jobId: `${run.id}-turn-2`, attemptsMade: 0, maxAttempts: 5 },
    );
    expect(result.kind).toBe('done');
    expect(harness.simulator.requests.length).toBe(before);
    expect((await harness.fleet.store.getRun(run.id))?.status).toBe('succeeded');
  });

  it('treats a second enqueue of the same turn as a no-op', async () => {
    const created = await harness.submit({});
    await harness.fleet.queues.own.enqueueTurn({ runId: created.id, turn: 0, trace: {} });
    const run = await harness.waitForRun(created.id);
    expect(run.status).toBe('succeeded');
    const turnZeroCalls = harness.simulator.requests.filter(
      (request) => request.headers['x-buildfleet-run-id'] === run.id && (request.body as { messages: unknown[] }).messages.length === 1,
    );
    expect(turnZeroCalls).toHaveLength(1);
  });
});

describe('tool calls written as text', () => {
  it('runs a recovered call as a synthetic tool_use, answers it natively and keeps the original text', async () => {
    const run = await harness.waitForRun((await harness.submit({ options: { scenario: 'text_tool_calls' } })).id);
    expect(run.status).toBe('succeeded');
    const events = await harness.fleet.store.readEvents(run.id);
    const recoveries = events.filter((event) => event.event === 'tool-call-recover');
    expect(recoveries.length).toBeGreaterThan(0);
    for (const recovery of recoveries) {
      expect(String(recovery.tool_use_id)).toMatch(/^synthetic_[0-9a-f]{24}$/);
      expect(String(recovery.original_text)).toContain(String(recovery.tool));
    }
    const transcript = JSON.stringify(await harness.fleet.store.getMessages(run.id));
    for (const recovery of recoveries) {
      expect(transcript).toContain(`"tool_use_id":"${String(recovery.tool_use_id)}"`);
    }
  });

  it('with recovery off, a text call is never executed', async () => {
    const run = await harness.waitForRun((await harness.submit({ options: { scenario: 'text_tool_calls', textRecovery: false } })).id);
    const events = await harness.fleet.store.readEvents(run.id);
    expect(events.some((event) => event.event === 'text-call-detect')).toBe(true);
    expect(events.some((event) => event.event === 'tool-call-recover')).toBe(false);
    expect(events.some((event) => event.event === 'tool-call-dispatch' && event.parse_mode !== 'native')).toBe(false);
  });
});
