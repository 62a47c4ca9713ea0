// Phase changes through the real queues (src/agent/phase-tools.ts): on a model whose catalog entry
// has mid-conversation tool changes, a build declares every tool once and changes phase with a
// system message in the transcript, so its top-level `tools` and `system` are the same bytes on
// every request and the request after a phase change reads the cache; on a model without them the
// tier per request stays. Strict tools go to the models that take them. Read from the simulator's
// request log: what the "provider" received.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/sim/simulator-server.js';
import { TOOL_CHANGES_BETA } from '../../src/agent/phase-tools.js';
import { toolsForPhase } from '../../src/domain/profile.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

type Block = Record<string, unknown>;
interface SentBody {
  tools: Block[];
  system: unknown;
  messages: Array<{ role: string; content: string | Block[] }>;
}

const bodyOf = (request: RecordedRequest) => request.body as SentBody;

function runRequests(harness: InProcessFleet, runId: string): RecordedRequest[] {
  return harness.simulator.requests.filter((request) => request.path === '/v1/messages' && request.headers['x-buildfleet-run-id'] === runId);
}

async function phasesOf(harness: InProcessFleet, runId: string): Promise<string[]> {
  return (await turnStarts(harness, runId)).map((event) => String(event.phase));
}

async function turnStarts(harness: InProcessFleet, runId: string) {
  return (await harness.fleet.store.readEvents(runId)).filter((event) => event.event === 'turn-start');
}

describe('phase changes by model', () => {
  let harness: InProcessFleet;
  beforeAll(async () => {
    // Sonnet 4.6 told it has no strict tools: the fleet must then send none to it.
    harness = await startInProcessFleet({ label: 'phase-tool-changes', env: { BUILDFLEET_MODEL_CAPABILITIES: JSON.stringify({ 'claude-sonnet-4-6': { strictTools: false } }) } });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('on Sonnet 5.5 the tools and system are byte-identical on every request, the phases come as system messages, and the request after each change reads the cache', async () => {
    const run = await harness.waitForRun((await harness.submit({ model: 'claude-sonnet-5-5' })).id);
    expect(run.status).toBe('succeeded');
    const requests = runRequests(harness, run.id);
    const phases = await phasesOf(harness, run.id);
    expect(phases).toHaveLength(requests.length);
    expect(new Set(phases)).toEqual(new Set(['planning', 'building', 'verifying']));

    const first = bodyOf(requests[0]!);
    for (const [index, request] of requests.entries()) {
      expect(request.status, `request ${index}`).toBe(200);
      expect(JSON.stringify(bodyOf(request).tools), `request ${index}'s tools`).toBe(JSON.stringify(first.tools));
      expect(JSON.stringify(bodyOf(request).system), `request ${index}'s system`).toBe(JSON.stringify(first.system));
      expect(request.headers['anthropic-beta'], `request ${index}`).toContain(TOOL_CHANGES_BETA);
    }
    // Every tool declared, with strict; those outside the tiers all phases share are deferred.
    expect(first.tools.map((tool) => tool.name).sort()).toEqual([...new Set([...toolsForPhase('building'), ...toolsForPhase('verifying')])].sort());
    expect(first.tools.every((tool) => tool.strict === true)).toBe(true);
    expect(first.tools.filter((tool) => tool.defer_loading !== true).map((tool) => tool.name).sort()).toEqual([...toolsForPhase('planning')].sort());

    // Append-only: each request's messages start with the previous request's, byte for byte
    // (the breakpoints, which move forward, left out).
    const withoutBreakpoints = (messages: unknown) => JSON.stringify(messages, (key, value: unknown) => (key === 'cache_control' ? undefined : value));
    for (let index = 1; index < requests.length; index += 1) {
      const previous = bodyOf(requests[index - 1]!).messages;
      expect(withoutBreakpoints(bodyOf(requests[index]!).messages.slice(0, previous.length)), `request ${index}`).toBe(withoutBreakpoints(previous));
    }

    // The system messages: the first names the phase; each change adds and removes tools.
    const last = bodyOf(requests.at(-1)!);
    const systemMessages = last.messages.filter((message) => message.role === 'system');
    expect(systemMessages.length).toBeGreaterThanOrEqual(3);
    const changes = systemMessages.flatMap((message) => (Array.isArray(message.content) ? message.content : [])).filter((block) => block.type !== 'text');
    expect(changes.some((block) => block.type === 'tool_addition' && (block.tool as Block).name === 'write_file')).toBe(true);
    expect(changes.some((block) => block.type === 'tool_removal' && (block.tool as Block).name === 'write_file')).toBe(true);
    expect(changes.some((block) => block.type === 'tool_addition' && (block.tool as Block).name === 'publish')).toBe(true);
    // Each sits right after a user message.
    last.messages.forEach((message, index) => {
      if (message.role === 'system') expect(last.messages[index - 1]?.role, `message ${index}`).toBe('user');
    });

    // The request that applies a phase reads the previous request's whole prefix from the cache.
    // Where tool_choice changes too (the forced plan, then auto) the messages' entries are keyed
    // by it (docs build-with-claude/prompt-caching, "What invalidates the cache"): the tools and
    // system are still read.
    const choices = (await turnStarts(harness, run.id)).map((event) => String(event.tool_choice));
    let changesReadWhole = 0;
    for (let index = 1; index < requests.length; index += 1) {
      if (phases[index] === phases[index - 1]) continue;
      const previous = requests[index - 1]!.usage!;
      const cachedBefore = (previous.cache_read_input_tokens ?? 0) + (previous.cache_creation_input_tokens ?? 0);
      const read = requests[index]!.usage!.cache_read_input_tokens ?? 0;
      if (choices[index] === choices[index - 1]) {
        expect(read, `phase change at request ${index}`).toBe(cachedBefore);
        changesReadWhole += 1;
      } else expect(read, `phase change at request ${index} (tool_choice changed)`).toBeGreaterThan(cachedBefore * 0.9);
    }
    expect(changesReadWhole, 'the building → verifying change').toBeGreaterThanOrEqual(1);

    // The transcript stores the system messages, and the API shows them.
    const stored = (await harness.fleet.store.getMessages(run.id)) as Array<{ role: string }>;
    expect(stored.filter((message) => message.role === 'system')).toHaveLength(systemMessages.length);
    const page = (await (await fetch(`${harness.apiUrl}/v1/runs/${run.id}/transcript?limit=100`, { headers: { authorization: `Bearer ${harness.apiKey}` } })).json()) as {
      messages: Array<{ role: string }>;
    };
    expect(page.messages.filter((message) => message.role === 'system')).toHaveLength(systemMessages.length);
  });

  it('on Sonnet 4.6 the tier changes in tools at each phase change, with no system message, no beta and no strict tool', async () => {
    const run = await harness.waitForRun((await harness.submit({ model: 'claude-sonnet-4-6' })).id);
    expect(run.status).toBe('succeeded');
    const requests = runRequests(harness, run.id);
    const phases = await phasesOf(harness, run.id);
    requests.forEach((request, index) => {
      const body = bodyOf(request);
      expect(request.status).toBe(200);
      expect(body.tools.map((tool) => tool.name), `request ${index}`).toEqual([...toolsForPhase(phases[index] as 'planning')]);
      expect(body.messages.some((message) => message.role === 'system')).toBe(false);
      expect(body.tools.some((tool) => 'strict' in tool || 'defer_loading' in tool)).toBe(false);
      expect(request.headers['anthropic-beta'] ?? '').not.toContain(TOOL_CHANGES_BETA);
    });
    expect(new Set(requests.map((request) => JSON.stringify(bodyOf(request).tools))).size).toBe(3);
  });
});
