// Overload and the spend limit through the real queue, with three model workers sharing one Redis:
// a mid-stream overloaded_error and a time-based 529 episode are waited out behind the pause of the
// runs' provider and rate-limit class (every run here shares one: no request reaches the simulator
// while it is in force, no attempt is spent), and the
// spend-limit 400 fails its run once and pauses admission of new runs until an admin clears it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRunId } from '../../src/engine/index.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

let harness: InProcessFleet;
beforeAll(async () => {
  harness = await startInProcessFleet({
    label: 'overload',
    modelWorkers: 3,
    env: {
      // Two attempts only: an overload must never spend them.
      BUILDFLEET_MODEL_ATTEMPTS: '2',
      BUILDFLEET_RETRY_BASE_MS: '40',
      BUILDFLEET_OVERLOAD_BACKOFF_BASE_MS: '200',
      BUILDFLEET_OVERLOAD_BACKOFF_CAP_MS: '800',
    },
  });
});
afterAll(async () => {
  await harness?.close();
});

const requestsOf = (runId: string) => harness.simulator.requests.filter((request) => request.headers['x-buildfleet-run-id'] === runId);

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await fetch(`${harness.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${harness.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

describe('overload', () => {
  it('retries a mid-stream overloaded_error behind the pause of its scope, spending no attempt', async () => {
    const runId = newRunId();
    // Three overloads in a row with two attempts: only a pause that spends no attempt survives it.
    harness.simulator.faults.add({ kind: 'stream_error', errorType: 'overloaded_error', runId, count: 3 });
    await harness.submit({ runId });
    const run = await harness.waitForRun(runId, 60_000);
    expect(run.status).toBe('succeeded');
    const events = await harness.fleet.store.readEvents(runId);
    const errors = events.filter((event) => event.event === 'model-call-fail');
    expect(errors).toHaveLength(3);
    for (const error of errors) {
      // A stream that began with 200 and then sent `event: error`: classified like a 529.
      expect(error).toMatchObject({ status: null, error_type: 'overloaded_error', outcome: 'overloaded', attempt: 1 });
      expect(String(error.request_id)).toMatch(/^req_/);
    }
    expect(events.filter((event) => event.event === 'model-overload-wait').map((event) => event.backoff_step)).toEqual([1, 2, 3]);
    expect(events.filter((event) => event.event === 'turn-start').every((event) => event.attempt === 1)).toBe(true);
    expect(requestsOf(runId).slice(0, 4).map((request) => request.status)).toEqual([200, 200, 200, 200]);
  }, 60_000);

  it('waits out a 529 episode across concurrent runs: all succeed, and nothing is sent while the pause is in force', async () => {
    const before = harness.simulator.requests.length;
    harness.simulator.faults.add({ kind: 'overload_episode', durationMs: 1500 });
    const runIds = Array.from({ length: 4 }, () => newRunId());
    await Promise.all(runIds.map((runId) => harness.submit({ runId })));
    const runs = await Promise.all(runIds.map((runId) => harness.waitForRun(runId, 60_000)));
    expect(runs.map((run) => run.status)).toEqual(runIds.map(() => 'succeeded'));

    const requests = harness.simulator.requests.slice(before);
    expect(requests.filter((request) => request.status === 529).length).toBeGreaterThan(0);
    // Each pause as the fleet recorded it: from its model-overload-wait event for wait_ms. The event
    // is written after the pause is set, so the window starts late, never early; 50 ms at either
    // end absorb a call that passed its pause check just before another worker set the pause.
    const windows: Array<{ from: number; to: number }> = [];
    for (const runId of runIds) {
      for (const event of await harness.fleet.store.readEvents(runId)) {
        if (event.event !== 'model-overload-wait') continue;
        const start = Date.parse(String(event.at));
        windows.push({ from: start + 50, to: start + (event.wait_ms as number) - 50 });
      }
    }
    expect(windows.length).toBeGreaterThan(0);
    const sentDuringPause = requests.filter((request) => windows.some((window) => request.timestampMs > window.from && request.timestampMs < window.to));
    expect(sentDuringPause).toEqual([]);
    // Overload spent no attempt of any run.
    for (const runId of runIds) {
      const starts = (await harness.fleet.store.readEvents(runId)).filter((event) => event.event === 'turn-start');
      expect(starts.every((event) => event.attempt === 1)).toBe(true);
    }
  }, 90_000);
});

describe('the spend limit', () => {
  it('fails the run billing_spend_cap after one call and refuses new runs until an admin clears the pause', async () => {
    const runId = newRunId();
    harness.simulator.faults.add({ kind: 'spend_limit', runId });
    await harness.submit({ runId });
    const run = await harness.waitForRun(runId);
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('billing_spend_cap');
    expect(run.error?.message).toMatch(/^You have reached your specified API usage limits/);
    expect(requestsOf(runId).map((request) => request.status)).toEqual([400]);

    const refused = await api('POST', '/v1/runs', { prompt: 'Build a site while the limit is reached.' });
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ error: { code: 'model_spend_limit_reached' } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    const state = await api('GET', '/v1/admin/spend-limit');
    expect(state.status).toBe(200);
    expect(state.body).toMatchObject({ paused: true, run_id: runId, request_id: requestsOf(runId)[0]!.requestId });

    const cleared = await api('POST', '/v1/admin/spend-limit/clear');
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ cleared: true, paused: false });

    const admitted = await api('POST', '/v1/runs', { prompt: 'Build a site after the limit was raised.' });
    expect(admitted.status).toBe(202);
    const next = await harness.waitForRun(String(admitted.body.id), 30_000);
    expect(next.status).toBe('succeeded');
  }, 60_000);
});
