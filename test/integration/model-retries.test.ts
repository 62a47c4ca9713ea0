// Retry by class through the real queue: the simulator scripts the failures, the SDK's own
// retries are off, and every retry is a BullMQ attempt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRunId } from '../../src/runs/run-store.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

let harness: InProcessFleet;
beforeAll(async () => {
  harness = await startInProcessFleet({
    label: 'retries',
    env: { BUILDFLEET_RETRY_BASE_MS: '40', BUILDFLEET_MODEL_TIMEOUT_MS: '1500' },
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

  it('retries a 529 storm with growing, jittered delays and at most 5 attempts', async () => {
    const created = { id: newRunId() };
    harness.simulator.faults.add({ kind: 'overloaded', runId: created.id, count: 10 });
    await harness.submit({ runId: created.id });
    const run = await harness.waitForRun(created.id);
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('model_unavailable');
    const attempts = requestsOf(created.id);
    expect(attempts.map((request) => request.status)).toEqual([529, 529, 529, 529, 529]);
    const gaps = attempts.slice(1).map((request, index) => request.timestampMs - attempts[index]!.timestampMs);
    // Full jitter in [cap/2, cap] with cap = 40 ms × 2^(n-1): each gap at least half its cap.
    gaps.forEach((gap, index) => expect(gap).toBeGreaterThanOrEqual(20 * 2 ** index));
    expect(gaps[3]!).toBeGreaterThan(gaps[0]!);
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

  it('treats a response slower than the client timeout as transient', async () => {
    const created = { id: newRunId() };
    harness.simulator.faults.add({ kind: 'slow', delayMs: 2500, runId: created.id });
    await harness.submit({ runId: created.id });
    const run = await harness.waitForRun(created.id);
    expect(run.status).toBe('succeeded');
    const events = await harness.fleet.store.readEvents(created.id);
    expect(events.find((event) => event.event === 'model-error')).toMatchObject({ outcome: 'transient' });
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
