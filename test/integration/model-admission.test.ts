// Token-aware admission through the real queue: two model workers share one limiter in Redis
// against the simulator's input-tokens-per-minute limit. More input than one minute's limit is
// needed, so the limit binds — and the fleet waits for capacity instead of collecting 429s: every
// build succeeds, the simulator refuses nothing, and the runs' events show the waits. A run's
// priority goes in through POST /v1/runs, validated, and is stored on the run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

/** The simulated key's input tokens per minute (requests and output tokens are not the limit here). */
const INPUT_TOKENS_PER_MINUTE = 12_000;
const LIMITS = { requestsPerMinute: 10_000, inputTokensPerMinute: INPUT_TOKENS_PER_MINUTE, outputTokensPerMinute: 10_000_000 };
const BUILDS = 3;

let harness: InProcessFleet;
beforeAll(async () => {
  harness = await startInProcessFleet({
    label: 'admission',
    modelWorkers: 2,
    simulator: { rateLimits: LIMITS },
    env: {
      BUILDFLEET_ADMISSION: 'on',
      BUILDFLEET_ADMISSION_LIMITS: `${LIMITS.requestsPerMinute},${LIMITS.inputTokensPerMinute},${LIMITS.outputTokensPerMinute}`,
      BUILDFLEET_MAX_CONCURRENT_RUNS: '0',
      BUILDFLEET_RATE_LIMIT_PER_MINUTE: '0',
    },
  });
});
afterAll(async () => {
  await harness?.close();
});

describe('admission across two model workers', () => {
  it('keeps the fleet under the input-token limit: no 429s, every build succeeds, calls waited for capacity', async () => {
    const runs = await Promise.all(Array.from({ length: BUILDS }, (_, index) => harness.submit({ prompt: `Build a small website for bakery ${index + 1}.` })));
    for (const run of runs) expect((await harness.waitForRun(run.id, 120_000)).status).toBe('succeeded');
    const calls = harness.simulator.requests.filter((request) => request.path === '/v1/messages');
    // What the simulator counted toward its limit: uncached input plus cache writes.
    const counted = calls.reduce((sum, call) => sum + (call.usage ? call.usage.input_tokens + (call.usage.cache_creation_input_tokens ?? 0) : 0), 0);
    expect(counted, 'the builds needed more than one minute of the limit').toBeGreaterThan(INPUT_TOKENS_PER_MINUTE);
    expect(calls.filter((call) => call.status === 429)).toEqual([]);
    const waits: Array<Record<string, unknown>> = [];
    for (const run of runs) {
      const events = await harness.fleet.store.readEvents(run.id);
      waits.push(...events.filter((event) => event.event === 'model-admission-wait'));
      // Waiting spent no attempt: every call went out on its turn's first attempt.
      expect(events.filter((event) => event.event === 'turn-start').every((event) => event.attempt === 1)).toBe(true);
      expect(events.filter((event) => event.event === 'model-call-fail')).toEqual([]);
    }
    expect(waits.length).toBeGreaterThan(0);
    // Only the input bucket was short; each wait booked the call a slot.
    for (const wait of waits) expect(wait).toMatchObject({ limit: 'input_tokens', booked: true, priority: 'interactive' });
  }, 180_000);

  it('takes a run’s priority through POST /v1/runs, stores it, and refuses one it does not know', async () => {
    const post = (options: unknown) =>
      fetch(`${harness.apiUrl}/v1/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${harness.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'Build a page.', maxTurns: 1, options }),
      });
    const accepted = await post({ priority: 'batch' });
    expect(accepted.status).toBe(202);
    const { id } = (await accepted.json()) as { id: string };
    expect((await harness.fleet.store.getRun(id))?.options.priority).toBe('batch');
    const defaulted = (await (await post({})).json()) as { id: string };
    expect((await harness.fleet.store.getRun(defaulted.id))?.options.priority).toBeUndefined();
    const refused = await post({ priority: 'urgent' });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('priority');
  });
});
