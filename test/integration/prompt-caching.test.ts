// Prompt caching through the real queues: the fleet places the breakpoints on each request it
// sends (src/model/place-cache-breakpoints.ts), the simulator caches like the Messages API (its
// request log holds every body and the usage it answered, src/sim/prompt-cache.ts). A build must
// send a breakpoint on every request, keep the cached prefix byte-identical from one request of a
// phase to the next, and so read the previous request's whole prefix back on every later turn.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/sim/simulator-server.js';
import { SUMMARY_REQUEST } from '../../src/agent/summary-request.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

type Block = Record<string, unknown>;
interface SentBody {
  tools: Block[];
  system: string | Block[];
  tool_choice: unknown;
  thinking?: unknown;
  messages: Array<{ role: string; content: string | Block[] }>;
}
interface BlockPosition {
  message: number;
  block: number;
}

const bodyOf = (request: RecordedRequest) => request.body as SentBody;
const readTokens = (request: RecordedRequest) => request.usage?.cache_read_input_tokens ?? 0;
const cachedTokens = (request: RecordedRequest) => readTokens(request) + (request.usage?.cache_creation_input_tokens ?? 0);

function runRequests(harness: InProcessFleet, runId: string): RecordedRequest[] {
  return harness.simulator.requests.filter((request) => request.path === '/v1/messages' && request.headers['x-buildfleet-run-id'] === runId);
}

/** The block the request's last message breakpoint sits on: where its cached prefix ends. */
function lastMessageBreakpoint(body: SentBody): BlockPosition | null {
  for (let message = body.messages.length - 1; message >= 0; message -= 1) {
    const content = body.messages[message]!.content;
    if (typeof content === 'string') continue;
    for (let block = content.length - 1; block >= 0; block -= 1) if ('cache_control' in content[block]!) return { message, block };
  }
  return null;
}

/** The prompt through `position` as the cache compares it: every byte the SDK sent, tools →
 * system → tool_choice and thinking (which key the messages) → messages, without `cache_control`
 * (a breakpoint that moved on is not part of the prefix). */
function cachedPrefix(body: SentBody, position: BlockPosition): string {
  const messages = body.messages.slice(0, position.message + 1).map((message, index) =>
    index === position.message && Array.isArray(message.content) ? { ...message, content: message.content.slice(0, position.block + 1) } : message,
  );
  const prefix = { tools: body.tools, system: body.system, tool_choice: body.tool_choice, thinking: body.thinking ?? null, messages };
  return JSON.stringify(prefix, (key, value: unknown) => (key === 'cache_control' ? undefined : value));
}

function blockAt(body: SentBody, position: BlockPosition): unknown {
  const content = body.messages[position.message]?.content;
  return Array.isArray(content) ? content[position.block] : undefined;
}

/** Checks every request of a finished run; returns those that followed a request of the same
 * phase (the first request of a phase is the planned miss: its tools, and the system prompt's
 * phase line, changed). */
async function expectCachedRun(harness: InProcessFleet, runId: string): Promise<RecordedRequest[]> {
  const requests = runRequests(harness, runId);
  expect(requests.length).toBeGreaterThan(5);
  // One request per turn attempt, in order: the turn-start events say which phase each was in.
  const phases = (await harness.fleet.store.readEvents(runId)).filter((event) => event.event === 'turn-start').map((event) => String(event.phase));
  expect(phases).toHaveLength(requests.length);

  const followers: RecordedRequest[] = [];
  requests.forEach((request, index) => {
    expect(request.status, `request ${index}`).toBe(200);
    expect(request.cacheBreakpoints, `request ${index}`).toBeGreaterThanOrEqual(1);
    expect(request.cacheBreakpoints, `request ${index}`).toBeLessThanOrEqual(4);
    const body = bodyOf(request);
    for (const message of body.messages) {
      if (typeof message.content === 'string') continue;
      for (const block of message.content) if (block.type === 'thinking' || block.type === 'redacted_thinking') expect(block).not.toHaveProperty('cache_control');
    }
    const previous = requests[index - 1];
    if (!previous || phases[index] !== phases[index - 1]) return;
    followers.push(request);
    const position = lastMessageBreakpoint(bodyOf(previous));
    expect(position, `request ${index - 1} has a message breakpoint`).not.toBeNull();
    expect(cachedPrefix(body, position!), `request ${index} repeats request ${index - 1}'s prefix byte for byte`).toBe(cachedPrefix(bodyOf(previous), position!));
    expect(JSON.stringify(blockAt(body, position!)), `request ${index} marks where request ${index - 1} ended`).toBe(JSON.stringify(blockAt(bodyOf(previous), position!)));
    // It reads back exactly what the previous request cached: its whole prefix.
    expect(readTokens(request), `request ${index} reads request ${index - 1}'s prefix`).toBe(cachedTokens(previous));
  });
  // Breakpoints go on the request, never into the stored transcript.
  expect(JSON.stringify(await harness.fleet.store.getMessages(runId))).not.toContain('cache_control');
  return followers;
}

describe('prompt caching on (the default)', () => {
  let harness: InProcessFleet;
  beforeAll(async () => {
    harness = await startInProcessFleet({ label: 'prompt-cache-on' });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('a build sends a breakpoint on every request, repeats each phase’s prefix byte for byte and reads it back', async () => {
    const run = await harness.waitForRun((await harness.submit({})).id);
    expect(run.status).toBe('succeeded');
    const followers = await expectCachedRun(harness, run.id);
    expect(followers.length).toBeGreaterThanOrEqual(4);
    // On later turns the cache reads cover most of the prompt: everything but the turn's new blocks.
    for (const request of followers.slice(-3)) {
      expect(readTokens(request)).toBeGreaterThan(request.usage!.input_tokens + (request.usage!.cache_creation_input_tokens ?? 0));
    }
  });

  it('a thinking run does the same, with no breakpoint on a thinking block (the API would answer 400)', async () => {
    const run = await harness.waitForRun((await harness.submit({ thinking: { budgetTokens: 2048 } })).id);
    expect(run.status).toBe('succeeded');
    const requests = runRequests(harness, run.id);
    expect(requests.some((request) => JSON.stringify(request.body).includes('"type":"thinking"'))).toBe(true);
    const followers = await expectCachedRun(harness, run.id);
    expect(followers.length).toBeGreaterThanOrEqual(4);
    expect(readTokens(followers.at(-1)!)).toBeGreaterThan(0);
  });
});

/** The run's summary request (the first whose last message asks for the summary: the finish gate
 * passed on the turn before) and the request before it. */
function summaryRequestOf(requests: RecordedRequest[]): { previous: RecordedRequest; summary: RecordedRequest } {
  const index = requests.findIndex((request) => {
    const last = bodyOf(request).messages.at(-1)!;
    return Array.isArray(last.content) && last.content.some((block) => block.type === 'text' && block.text === SUMMARY_REQUEST);
  });
  expect(index, 'a request asked for the summary').toBeGreaterThan(0);
  return { previous: requests[index - 1]!, summary: requests[index]! };
}

describe('the summary turn keeps the prefix of the turn before it', () => {
  let harness: InProcessFleet;
  beforeAll(async () => {
    harness = await startInProcessFleet({ label: 'prompt-cache-summary' });
  });
  afterAll(async () => {
    await harness?.close();
  });

  for (const [label, settings] of [
    ['a build', {}],
    ['a thinking build', { thinking: { budgetTokens: 2048 } }],
  ] as const) {
    it(`${label}: same tools, system prompt and tool_choice, the transcript up to the previous breakpoint byte for byte, read from the cache`, async () => {
      const run = await harness.waitForRun((await harness.submit(settings)).id);
      expect(run.status).toBe('succeeded');
      const requests = runRequests(harness, run.id);
      const { previous, summary } = summaryRequestOf(requests);
      // It is the run's last request: the model answered it with the summary.
      expect(summary).toBe(requests.at(-1));
      const [before, after] = [bodyOf(previous), bodyOf(summary)];
      const strip = (value: unknown) => JSON.stringify(value, (key, field: unknown) => (key === 'cache_control' ? undefined : field));
      expect(strip(after.tools)).toBe(strip(before.tools));
      expect(strip(after.system)).toBe(strip(before.system));
      expect(after.tool_choice).toEqual({ type: 'auto' });
      expect(after.tool_choice).toEqual(before.tool_choice);
      expect(after.thinking ?? null).toEqual(before.thinking ?? null);
      const position = lastMessageBreakpoint(before)!;
      expect(cachedPrefix(after, position)).toBe(cachedPrefix(before, position));
      expect(JSON.stringify(blockAt(after, position))).toBe(JSON.stringify(blockAt(before, position)));
      // The request for the summary comes after that breakpoint, in the new user message, after the
      // finish_turn result (tool_result blocks first, as the API requires).
      const last = after.messages.at(-1)!.content as Block[];
      expect(last.map((block) => block.type)).toEqual(['tool_result', 'text']);
      expect(after.messages.length).toBe(before.messages.length + 2);
      // It reads everything the previous request cached and writes only the two new messages.
      expect(readTokens(summary)).toBe(cachedTokens(previous));
      expect(summary.usage!.cache_creation_input_tokens ?? 0).toBeLessThan(readTokens(summary) / 10);
      // The run never left its phase: no phase change, the same phase on both turns.
      const events = await harness.fleet.store.readEvents(run.id);
      expect(events.filter((event) => event.event === 'phase-change').map((event) => event.to)).toEqual(['building', 'verifying']);
      const starts = events.filter((event) => event.event === 'turn-start');
      expect(starts.slice(-2).map((event) => [event.phase, event.tool_choice])).toEqual([
        ['verifying', 'auto'],
        ['verifying', 'auto'],
      ]);
      expect(run.phase).toBe('verifying');
      expect(run.finishVerified).toBe(true);
    });
  }
});

describe('prompt caching off (BUILDFLEET_PROMPT_CACHING=false)', () => {
  let harness: InProcessFleet;
  beforeAll(async () => {
    harness = await startInProcessFleet({ label: 'prompt-cache-off', env: { BUILDFLEET_PROMPT_CACHING: 'false' } });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('sends no breakpoint, and nothing is written to or read from the cache', async () => {
    const run = await harness.waitForRun((await harness.submit({})).id);
    expect(run.status).toBe('succeeded');
    const requests = runRequests(harness, run.id);
    expect(requests.length).toBeGreaterThan(5);
    for (const request of requests) {
      expect(request.cacheBreakpoints).toBe(0);
      expect(JSON.stringify(request.body)).not.toContain('cache_control');
      expect(cachedTokens(request)).toBe(0);
    }
  });
});

describe('a run waiting for an answer (BUILDFLEET_PROMPT_CACHE_TTL_WAITING)', () => {
  // The simulator's clock runs ahead on demand, so a half-hour wait takes no time.
  const WAIT_MS = 30 * 60_000;

  /** Asks, waits half an hour, answers; returns the asking request and the one after the answer. */
  async function askWaitAnswer(waitingTtl: '5m' | '1h') {
    let aheadMs = 0;
    const harness = await startInProcessFleet({
      label: `prompt-cache-wait-${waitingTtl}`,
      env: { BUILDFLEET_PROMPT_CACHE_TTL_WAITING: waitingTtl },
      simulator: { clock: () => Date.now() + aheadMs },
    });
    try {
      const parked = await harness.waitForRun((await harness.submit({ options: { scenario: 'ask_user' } })).id);
      expect(parked.status).toBe('waiting_for_input');
      const asking = runRequests(harness, parked.id).at(-1)!;
      aheadMs += WAIT_MS;
      const answered = await fetch(`${harness.apiUrl}/v1/runs/${parked.id}/input`, {
        method: 'POST',
        headers: { authorization: `Bearer ${harness.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'Warm colors, please.' }),
      });
      expect(answered.status).toBe(202);
      const run = await harness.waitForRun(parked.id);
      expect(run.status).toBe('succeeded');
      const requests = runRequests(harness, run.id);
      const resumed = requests[requests.indexOf(asking) + 1]!;
      return { asking, resumed };
    } finally {
      await harness.close();
    }
  }

  it('5m (default): the asking request’s entries are gone after half an hour, so the resumed run writes its prefix again', async () => {
    const { asking, resumed } = await askWaitAnswer('5m');
    expect(JSON.stringify(asking.body)).not.toContain('"ttl":"1h"');
    expect(cachedTokens(asking)).toBeGreaterThan(0);
    expect(readTokens(resumed)).toBe(0);
  });

  it('1h: the asking request writes one-hour entries and the resumed run reads its whole prefix back', async () => {
    const { asking, resumed } = await askWaitAnswer('1h');
    expect(asking.cacheBreakpoints).toBe((JSON.stringify(asking.body).match(/"ttl":"1h"/g) ?? []).length);
    expect(asking.usage?.cache_creation?.ephemeral_1h_input_tokens ?? 0).toBeGreaterThan(0);
    expect(readTokens(resumed)).toBe(cachedTokens(asking));
  });
});
