// The summary turn through the real queues and the simulator: once finish_turn passed, the model
// still sees the phase's tools under tool_choice auto (so the request reads the cached prefix),
// and a call it makes anyway is refused with `finish_already_verified` without reaching a tool
// worker, the summary asked for again, and a model that never stops calling tools ends the run
// after DEFAULT_TURN_LIMITS.maxSummaryReprompts re-asks, with the summary finish_turn carried.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUMMARY_REQUEST } from '../../src/agent/summary-request.js';
import { DEFAULT_TURN_LIMITS } from '../../src/agent/stop-reason-handler.js';
import type { RecordedRequest } from '../../src/sim/simulator-server.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

type Block = { type: string; [field: string]: unknown };
interface SentBody {
  tools: unknown;
  system: unknown;
  tool_choice: unknown;
  messages: Array<{ role: string; content: string | Block[] }>;
}

let harness: InProcessFleet;
beforeAll(async () => {
  harness = await startInProcessFleet({ label: 'summary-turn' });
});
afterAll(async () => {
  await harness?.close();
});

const requestsOf = (runId: string) =>
  harness.simulator.requests.filter((request) => request.path === '/v1/messages' && request.headers['x-buildfleet-run-id'] === runId);
const bodyOf = (request: RecordedRequest) => request.body as SentBody;
const lastContent = (request: RecordedRequest) => bodyOf(request).messages.at(-1)!.content as Block[];
const withoutBreakpoints = (value: unknown) => JSON.stringify(value, (key, field: unknown) => (key === 'cache_control' ? undefined : field));

/** The requests from the first that asked for the summary on. */
function afterTheGate(requests: RecordedRequest[]): RecordedRequest[] {
  const first = requests.findIndex((request) => lastContent(request).some((block) => block.type === 'text' && block.text === SUMMARY_REQUEST));
  expect(first).toBeGreaterThan(0);
  return requests.slice(first - 1);
}

/** Every request after the gate kept the prefix of the one before it and read it from the cache. */
function expectPrefixKept(requests: RecordedRequest[]): void {
  for (const [index, request] of requests.entries()) {
    const previous = requests[index - 1];
    if (!previous) continue;
    expect(request.status).toBe(200);
    expect(withoutBreakpoints(bodyOf(request).tools)).toBe(withoutBreakpoints(bodyOf(previous).tools));
    expect(withoutBreakpoints(bodyOf(request).system)).toBe(withoutBreakpoints(bodyOf(previous).system));
    expect(bodyOf(request).tool_choice).toEqual({ type: 'auto' });
    const previousCached = (previous.usage?.cache_read_input_tokens ?? 0) + (previous.usage?.cache_creation_input_tokens ?? 0);
    expect(request.usage?.cache_read_input_tokens, `request ${index} read the previous prefix`).toBe(previousCached);
  }
}

describe('a tool call after the finish gate passed', () => {
  it('is refused with finish_already_verified, never runs, and the summary is asked for again', async () => {
    const run = await harness.waitForRun((await harness.submit({ options: { scenario: 'tool_call_after_finish' } })).id);
    expect(run.status).toBe('succeeded');
    // The model's own summary, written once the call was refused.
    expect(run.result).toContain('built, verified and published');

    const requests = afterTheGate(requestsOf(run.id));
    // finish_turn's request, the summary request (answered with read_session), the re-ask (answered with the summary).
    expect(requests).toHaveLength(3);
    expectPrefixKept(requests);
    const reask = lastContent(requests[2]!);
    expect(reask.map((block) => block.type)).toEqual(['tool_result', 'text']);
    expect(reask[0]).toMatchObject({ is_error: true, content: expect.stringContaining('Error (finish_already_verified)') });
    expect(reask[1]).toMatchObject({ type: 'text', text: SUMMARY_REQUEST });

    const events = await harness.fleet.store.readEvents(run.id);
    expect(events.filter((event) => event.event === 'tool-call-reject')).toEqual([
      expect.objectContaining({ tool: 'read_session', reason: 'finish_already_verified' }),
    ]);
    // Refused in the model turn: no tool job was dispatched for it, and none ran.
    expect(events.filter((event) => event.event === 'tool-call-dispatch').map((event) => event.tool)).not.toContain('read_session');
    const trail = await harness.fleet.store.getTrail(run.id);
    expect(trail.filter((entry) => entry.tool === 'read_session')).toEqual([
      expect.objectContaining({ ok: false, detail: 'finish_already_verified', phase: 'verifying' }),
    ]);
    expect(run.counters.summaryReprompts).toBe(1);
  });

  it('a model that keeps calling tools is re-asked a bounded number of times; the run succeeds with the summary finish_turn carried', async () => {
    const run = await harness.waitForRun((await harness.submit({ options: { scenario: 'tool_calls_after_finish_always' } })).id);
    expect(run.status).toBe('succeeded');
    expect(run.result).toContain('deployed it, checked the live page');

    const requests = afterTheGate(requestsOf(run.id));
    // finish_turn's request, the summary request, then one per re-ask: every answer after the gate called a tool.
    expect(requests).toHaveLength(2 + DEFAULT_TURN_LIMITS.maxSummaryReprompts);
    expectPrefixKept(requests);

    const events = await harness.fleet.store.readEvents(run.id);
    expect(events.filter((event) => event.event === 'tool-call-reject').map((event) => event.reason)).toEqual(
      Array.from({ length: DEFAULT_TURN_LIMITS.maxSummaryReprompts }, () => 'finish_already_verified'),
    );
    expect(events.filter((event) => event.event === 'summary-fallback-use')).toEqual([
      expect.objectContaining({ reprompts: DEFAULT_TURN_LIMITS.maxSummaryReprompts, tools: ['read_session'] }),
    ]);
    expect(events.at(-1)).toMatchObject({ event: 'run-end', status: 'succeeded' });
    expect(run.counters.summaryReprompts).toBe(DEFAULT_TURN_LIMITS.maxSummaryReprompts);
    const rejected = harness.simulator.requests.filter((request) => request.status >= 400 && request.status < 500);
    expect(rejected, 'the simulator answered 4xx to the fleet').toEqual([]);
  });
});
