// The model pause per provider identity and rate-limit class, through the real queue, two model
// workers and the simulator: a 429 on a Sonnet 4.x run through one provider pauses that class's
// calls through that provider only. An Opus 4.x run on the same provider and a Sonnet 4.x run
// through a second provider (another key: limits of its own) build to the end inside the pause,
// while a second Sonnet 4.x run on the paused provider sends nothing until the pause is over.
// Judged by order and by Redis's clock (model-rate-limit-wait's pause window, turn-start's
// pause_checked_at_ms), never by the workers' timing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRunId, type StoredEvent } from '../../src/engine/index.js';
import type { RunEventName } from '../../src/domain/run-events.js';
import { freePort } from '../../src/dev/private-redis.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

const SONNET = 'claude-sonnet-4-6';
const OPUS = 'claude-opus-4-6';
/** Longer than the other runs can take even on a loaded machine: they are waited for with less. */
const RETRY_AFTER_SECONDS = 60;

let harness: InProcessFleet;
beforeAll(async () => {
  // The second provider names the simulator's address, so its port is chosen first.
  const simulatorPort = await freePort();
  harness = await startInProcessFleet({
    label: 'pausescope',
    modelWorkers: 2,
    simulator: { port: simulatorPort },
    env: {
      BUILDFLEET_PROVIDERS: JSON.stringify({ second: { kind: 'anthropic', apiKey: 'sk-ant-second-key', baseUrl: `http://127.0.0.1:${simulatorPort}` } }),
      BUILDFLEET_RETRY_BASE_MS: '40',
    },
  });
});
afterAll(async () => {
  await harness?.close();
});

const requestsOf = (runId: string) => harness.simulator.requests.filter((request) => request.headers['x-buildfleet-run-id'] === runId);

async function eventsOf<Name extends RunEventName>(runId: string, name: Name) {
  return (await harness.fleet.store.readEvents(runId)).filter((event): event is Extract<StoredEvent, { event: Name }> => event.event === name);
}

async function waitFor<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('the model pause per provider and rate-limit class', () => {
  it('holds only the rate-limited class on the rate-limited provider; another class and another provider go on', async () => {
    const limited = newRunId();
    harness.simulator.faults.add({ kind: 'rate_limit', runId: limited, retryAfterSeconds: RETRY_AFTER_SECONDS });
    await harness.submit({ runId: limited, model: SONNET });
    const rateLimit = await waitFor('the 429', async () => (await eventsOf(limited, 'model-rate-limit-wait'))[0]);
    expect(rateLimit).toMatchObject({ provider: 'anthropic', rate_limit_class: 'claude-sonnet-4', cycle: 1 });
    const pauseFrom = Number(rateLimit.pause_from_ms);
    const pauseUntil = Number(rateLimit.pause_until_ms);
    expect(pauseUntil - pauseFrom).toBeGreaterThanOrEqual(RETRY_AFTER_SECONDS * 1000 - 1);

    // Three runs submitted inside the pause, after it was set.
    const otherClass = newRunId();
    const otherProvider = newRunId();
    const sameScope = newRunId();
    await harness.submit({ runId: otherClass, model: OPUS });
    await harness.submit({ runId: otherProvider, model: SONNET, provider: 'second' });
    await harness.submit({ runId: sameScope, model: SONNET });
    // Waited for with less than the pause: if they succeed, they built inside it.
    const [opusRun, secondRun] = await Promise.all([harness.waitForRun(otherClass, 45_000), harness.waitForRun(otherProvider, 45_000)]);
    expect(opusRun.status).toBe('succeeded');
    expect(secondRun.status).toBe('succeeded');
    for (const runId of [otherClass, otherProvider]) {
      const starts = await eventsOf(runId, 'turn-start');
      expect(starts.length).toBeGreaterThan(1);
      // Every call of theirs passed its check strictly inside the Sonnet pause of the first provider.
      for (const start of starts) {
        expect(Number(start.pause_checked_at_ms)).toBeGreaterThan(pauseFrom);
        expect(Number(start.pause_checked_at_ms)).toBeLessThan(pauseUntil);
      }
      expect(requestsOf(runId).every((request) => request.status === 200)).toBe(true);
    }
    // The second provider's calls went out with its own key.
    expect(requestsOf(otherProvider).every((request) => request.headers['x-api-key'] === 'sk-ant-second-key')).toBe(true);

    // The same scope's first turn was taken by a worker, met the pause and went back to wait for
    // its end, having sent nothing.
    const turnJob = `${sameScope}-turn-0`;
    await waitFor('the paused turn to be delayed', async () => ((await harness.fleet.queues.own.model.getJobState(turnJob)) === 'delayed' ? true : undefined));
    expect((await harness.fleet.store.getRun(sameScope))?.status).toBe('running');
    expect(requestsOf(sameScope)).toEqual([]);
    expect(await eventsOf(sameScope, 'turn-start')).toEqual([]);
    expect(requestsOf(limited).map((request) => request.status)).toEqual([429]);
  }, 90_000);
});
