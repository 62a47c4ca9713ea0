// max_tokens through the real queues and the simulator: a limit raised after a truncation stays
// raised for the rest of the run (read from the simulator's recorded requests), and truncations
// separated by clean answers never add up to max_tokens_exhausted, whose message says "in a row".
//
// The simulator's truncation scenarios each fire once per run, so the model client of this test
// names a different one on each request until each has fired: max_tokens_text, then
// max_tokens_tool_use, then max_tokens_after_tool_use. Everything else is the real fleet.
import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTextRecovery } from '../../src/agent/text-recovery.js';
import { createModelClient } from '../../src/model/model-client.js';
import { startModelWorker } from '../../src/workers/model-worker.js';
import type { RecordedRequest } from '../../src/sim/simulator-server.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

const TRUNCATION_SCENARIOS = ['max_tokens_text', 'max_tokens_tool_use', 'max_tokens_after_tool_use'];
const INITIAL_MAX_TOKENS = 1000;

let harness: InProcessFleet;
let worker: Worker;

const requestsOf = (runId: string): RecordedRequest[] =>
  harness.simulator.requests.filter((request) => request.path.startsWith('/v1/messages') && request.headers['x-buildfleet-run-id'] === runId);

/** The next truncation scenario this run has not had yet; `happy` once all have fired. */
function scenarioFor(runId: string): string {
  const fired = new Set(requestsOf(runId).filter((request) => request.stopReason === 'max_tokens').map((request) => request.scenario));
  return TRUNCATION_SCENARIOS.find((scenario) => !fired.has(scenario)) ?? 'happy';
}

beforeAll(async () => {
  harness = await startInProcessFleet({
    label: 'maxtokens',
    modelWorkers: 0,
    toolWorkers: 2,
    env: { BUILDFLEET_MAX_TOKENS: String(INITIAL_MAX_TOKENS) },
  });
  const base = createModelClient(harness.config);
  const client = base.withOptions({
    fetch: (url, init) => {
      const headers = new Headers(init?.headers);
      const runId = headers.get('x-buildfleet-run-id');
      if (runId) headers.set('x-buildfleet-scenario', scenarioFor(runId));
      return fetch(url, { ...init, headers });
    },
  });
  worker = startModelWorker(harness.fleet, { client, recover: createTextRecovery() });
});

afterAll(async () => {
  await worker?.close(true);
  await harness?.close();
});

describe('max_tokens over a run', () => {
  it('keeps a raised limit for the rest of the run and resets the truncation count after clean answers', async () => {
    const run = await harness.submit({ prompt: 'Build a small site for a bakery.' });
    expect(run.maxTokens).toBe(INITIAL_MAX_TOKENS);
    const finished = await harness.waitForRun(run.id, 30_000);
    expect(finished.error).toBeNull();
    expect(finished.status).toBe('succeeded');

    const requests = requestsOf(run.id);
    expect(requests.every((request) => request.status === 200)).toBe(true);
    const truncated = requests.flatMap((request, index) => (request.stopReason === 'max_tokens' ? [index] : []));
    // At least two truncations, each followed by a clean answer before the next.
    expect(truncated.length).toBeGreaterThanOrEqual(2);
    for (const [position, index] of truncated.entries()) {
      const next = truncated[position + 1];
      if (next === undefined) continue;
      const between = requests.slice(index + 1, next);
      expect(between.some((request) => request.stopReason !== 'max_tokens'), `a clean answer between truncations ${index} and ${next}`).toBe(true);
    }

    // Each truncation doubles the limit, and every later request carries it.
    const sent = requests.map((request) => (request.body as { max_tokens: number }).max_tokens);
    let expected = INITIAL_MAX_TOKENS;
    for (const [index, maxTokens] of sent.entries()) {
      expect(maxTokens, `max_tokens of request ${index}`).toBe(expected);
      if (requests[index]!.stopReason === 'max_tokens') expected *= 2;
    }
    expect(finished.maxTokens).toBe(expected);
    expect(finished.maxTokens).toBe(INITIAL_MAX_TOKENS * 2 ** truncated.length);
    expect(finished.counters.maxTokensContinuations).toBe(0);

    const raises = (await harness.fleet.store.readEvents(run.id)).filter((event) => event.event === 'max-tokens-raise');
    expect(raises.map((event) => event.to)).toEqual(truncated.map((_, position) => INITIAL_MAX_TOKENS * 2 ** (position + 1)));
  }, 60_000);
});
