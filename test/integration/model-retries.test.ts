// Retry by class through the real queue: the simulator scripts the failures, the SDK's own
// retries are off, and every retry is a BullMQ attempt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRunId } from '../../src/engine/index.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

let harness: InProcessFleet;
beforeAll(async () => {
  harness = await startInProcessFleet({
    label: 'retries',
    // The overload pause is capped low and the patience is many caps long, so the 529 storm makes
    // more calls than the attempts however slowly a loaded machine turns each one around.
    env: {
      BUILDFLEET_RETRY_BASE_MS: '40',
      BUILDFLEET_MODEL_CONNECT_TIMEOUT_MS: '1500',
      BUILDFLEET_OVERLOAD_BACKOFF_BASE_MS: '40',
      BUILDFLEET_OVERLOAD_BACKOFF_CAP_MS: '160',
      BUILDFLEET_OVERLOAD_PATIENCE_MS: '3000',
    },
  });
});
afterAll(async () => {
  await harness?.close();
});

const requestsOf = (runId: string) => harness.simulator.requests.filter((request) => request.headers['x-buildfleet-run-id'] === runId);

describe('model call retries by class', () => {
  it('sends a 400 exactly once and fails the run with the API error type', async () => {
    // Faults are scripted for the run's id before it starts, and touch no other run.
    const created = { id: newRunId() };
    harness.simulator.faults.add({ kind: 'bad_request', runId: created.id, message: 'messages: bad' });
    await harness.submit({ runId: created.id });
    const run = await harness.waitForRun(created.id);
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('model_invalid_request_error');
    expect(requestsOf(created.id)).toHaveLength(1);
  });

  it('never retries a 401 or a spend cap', async () => {
    for (const fault of [{ kind: 'unauthorized' as const }, { kind: 'spend_cap' as const }]) {
      const created = { id: newRunId() };
      harness.simulator.faults.add({ ...fault, runId: created.id });
      await harness.submit({ runId: created.id });
      const run = await harness.waitForRun(created.id);
      expect(run.status).toBe('failed');
      expect(run.error?.code).toBe(fault.kind === 'spend_cap' ? 'billing_spend_cap' : 'model_authentication_error');
      expect(requestsOf(created.id)).toHaveLength(1);
    }
  });

  it('retries transient errors with growing, jittered delays and at most 5 attempts', async () => {
    const created = { id: newRunId() };
    harness.simulator.faults.add({ kind: 'server_error', status: 500, runId: created.id, count: 10 });
    await harness.submit({ runId: created.id });
    const run = await harness.waitForRun(created.id);
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('model_unavailable');
    const attempts = requestsOf(created.id);
    expect(attempts.map((request) => request.status)).toEqual([500, 500, 500, 500, 500]);
    const gaps = attempts.slice(1).map((request, index) => request.timestampMs - attempts[index]!.timestampMs);
    // Full jitter in [cap/2, cap] with cap = 40 ms × 2^(n-1): each gap at least half its cap.
    gaps.forEach((gap, index) => expect(gap).toBeGreaterThanOrEqual(20 * 2 ** index));
    expect(gaps[3]!).toBeGreaterThan(gaps[0]!);
  });

  it('waits out a 529 storm beyond the attempts, and fails model_unavailable only after the overload patience', async () => {
    const created = { id: newRunId() };
    harness.simulator.faults.add({ kind: 'overloaded', runId: created.id, count: 1000 });
    await harness.submit({ runId: created.id });
    const run = await harness.waitForRun(created.id);
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('model_unavailable');
    expect(run.error?.message).toMatch(/overloaded for \d+ s of this turn/);
    const attempts = requestsOf(created.id);
    // Overload spends no attempt: more calls than BUILDFLEET_MODEL_ATTEMPTS, each a first attempt.
    expect(attempts.length).toBeGreaterThan(5);
    expect(attempts.every((request) => request.status === 529)).toBe(true);
    const events = await harness.fleet.store.readEvents(created.id);
    expect(events.filter((event) => event.event === 'turn-start').every((event) => event.attempt === 1)).toBe(true);
    const overloads = events.filter((event) => event.event === 'model-overload-wait');
    expect(overloads.length).toBeGreaterThan(0);
    // The run's scope's backoff grows through the episode: 40 ms, 80 ms, 160 ms …
    const steps = overloads.map((event) => event.backoff_step as number);
    expect(Math.max(...steps)).toBeGreaterThan(1);
  });

  it('recovers from transient errors and connection resets within the attempts', async () => {
    const created = { id: newRunId() };
    harness.simulator.faults.add([
      { kind: 'server_error', status: 503, runId: created.id },
      { kind: 'connection_reset', runId: created.id },
      { kind: 'should_retry', status: 400, shouldRetry: true, runId: created.id },
    ]);
    await harness.submit({ runId: created.id });
    const run = await harness.waitForRun(created.id);
    expect(run.status).toBe('succeeded');
    expect(requestsOf(created.id).slice(0, 4).map((request) => request.status)).toEqual([503, 0, 400, 200]);
  });

  it('treats response headers slower than the connect timeout as transient', async () => {
    const created = { id: newRunId() };
    harness.simulator.faults.add({ kind: 'slow', delayMs: 2500, runId: created.id });
    await harness.submit({ runId: created.id });
    const run = await harness.waitForRun(created.id);
    expect(run.status).toBe('succeeded');
    const events = await harness.fleet.store.readEvents(created.id);
    expect(events.find((event) => event.event === 'model-call-fail')).toMatchObject({ outcome: 'transient' });
  });

  it('x-should-retry: false stops a 5xx from being retried', async () => {
    const created = { id: newRunId() };
    harness.simulator.faults.add({ kind: 'should_retry', status: 503, shouldRetry: false, runId: created.id });
    await harness.submit({ runId: created.id });
    const run = await harness.waitForRun(created.id);
    expect(run.status).toBe('failed');
    expect(requestsOf(created.id)).toHaveLength(1);
  });
});
