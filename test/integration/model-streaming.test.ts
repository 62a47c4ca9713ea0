// Streamed model calls through the real queue: an answer longer than any timeout completes on its
// first attempt while the run shows its progress, and a stream that falls silent is abandoned
// after the idle timeout and retried. The simulator streams over real HTTP through the real SDK.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRunId } from '../../src/engine/index.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

const CONNECT_TIMEOUT_MS = 1000;
const IDLE_TIMEOUT_MS = 1500;

describe('a streamed answer slower than every timeout', () => {
  let harness: InProcessFleet;
  beforeAll(async () => {
    // ~15 output tokens/s: the first turn's ~40 tokens take a few seconds, in steady deltas.
    harness = await startInProcessFleet({
      label: 'streamslow',
      simulator: { ttftMs: 100, tokensPerSecond: 15 },
      env: {
        BUILDFLEET_MODEL_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
        BUILDFLEET_MODEL_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
        BUILDFLEET_MODEL_PROGRESS_INTERVAL_MS: '300',
      },
    });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('completes on the first attempt, with model-progress events and the request-id on model-call-end', async () => {
    const runId = newRunId();
    // One turn is enough: the run then ends max_turns_exceeded without a second call.
    await harness.submit({ runId, maxTurns: 1 });
    const run = await harness.waitForRun(runId, 30_000);
    expect(run.error?.code).toBe('max_turns_exceeded');
    const requests = harness.simulator.requests.filter((request) => request.headers['x-buildfleet-run-id'] === runId);
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request!.status).toBe(200);
    // Longer than the connect and the idle timeout: a total timeout of either length would have cut it.
    expect(request!.durationMs!).toBeGreaterThan(IDLE_TIMEOUT_MS);

    const events = await harness.fleet.store.readEvents(runId);
    expect(events.filter((event) => event.event === 'model-call-fail')).toEqual([]);
    expect(events.filter((event) => event.event === 'turn-start').map((event) => event.attempt)).toEqual([1]);
    const progress = events.filter((event) => event.event === 'model-progress');
    expect(progress.find((event) => event.reason === 'tool_start')).toMatchObject({ block: 'tool_use', tool: 'todo_write' });
    const intervals = progress.filter((event) => event.reason === 'interval');
    expect(intervals.length).toBeGreaterThan(1);
    const tokens = intervals.map((event) => event.output_tokens as number);
    expect(tokens).toEqual([...tokens].sort((a, b) => a - b));
    // The fleet's tools ask for eager_input_streaming, so the plan's input shows progress while it
    // is written; buffered per parameter, it would arrive in one piece at the end.
    const body = request!.body as { tools: Array<{ eager_input_streaming?: boolean }> };
    expect(body.tools.every((tool) => tool.eager_input_streaming === true)).toBe(true);
    const whileWritingTool = new Set(intervals.filter((event) => event.block === 'tool_use').map((event) => event.output_tokens));
    expect(whileWritingTool.size).toBeGreaterThan(1);
    // Every progress event comes before the answer is recorded.
    const responseIndex = events.findIndex((event) => event.event === 'model-call-end');
    expect(events.findLastIndex((event) => event.event === 'model-progress')).toBeLessThan(responseIndex);
    expect(events[responseIndex]).toMatchObject({ request_id: request!.requestId });
    // The call's timing, for the console's waterfall: the first token no sooner than the
    // simulator's time to first token (message_start comes at once, before it), then the long
    // generation, all within the call's whole duration.
    const answer = events[responseIndex] as { first_token_ms?: number; duration_ms?: number };
    expect(answer.first_token_ms).toBeGreaterThanOrEqual(100);
    expect(answer.duration_ms).toBeGreaterThan(IDLE_TIMEOUT_MS);
    expect(answer.duration_ms!).toBeGreaterThan(answer.first_token_ms!);
    expect(request!.requestId).toMatch(/^req_/);
  }, 40_000);

  it('is stopped when its run is cancelled meanwhile: no answer recorded, what it cost charged, no retry', async () => {
    const runId = newRunId();
    await harness.submit({ runId, maxTurns: 1 });
    const events = () => harness.fleet.store.readEvents(runId);
    // Cancelled through the API (another process in production) once the answer is streaming.
    for (let streaming = false; !streaming; await new Promise((resolve) => setTimeout(resolve, 50))) {
      streaming = (await events()).some((event) => event.event === 'model-progress');
    }
    const cancelled = await fetch(`${harness.apiUrl}/v1/runs/${runId}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${harness.apiKey}` } });
    expect(cancelled.status).toBe(202);
    let stopped: { outcome?: unknown; message?: unknown; cost_usd?: unknown } | undefined;
    while (!stopped) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      stopped = (await events()).find((event) => event.event === 'model-call-fail') as typeof stopped;
    }
    expect(stopped).toMatchObject({ outcome: 'run_ended', status: null, attempt: 1 });
    expect(String(stopped.message)).toContain('The run ended (cancelled) while the answer streamed');
    const all = await events();
    expect(all.filter((event) => event.event === 'model-call-end')).toEqual([]);
    // The stream had started, so its part was paid for and charged to the run.
    expect(stopped.cost_usd as number).toBeGreaterThan(0);
    expect((await harness.fleet.store.getRun(runId))?.costMicroUsd).toBeGreaterThan(0);
    expect((await harness.fleet.store.getRun(runId))?.status).toBe('cancelled');
    expect(harness.simulator.requests.filter((request) => request.headers['x-buildfleet-run-id'] === runId)).toHaveLength(1);
  }, 60_000);
});

describe('a stream that falls silent', () => {
  let harness: InProcessFleet;
  beforeAll(async () => {
    harness = await startInProcessFleet({
      label: 'streamidle',
      env: { BUILDFLEET_MODEL_IDLE_TIMEOUT_MS: '300', BUILDFLEET_MODEL_ATTEMPTS: '2', BUILDFLEET_RETRY_BASE_MS: '40' },
    });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('is abandoned after the idle timeout, retried as transient, and the run succeeds', async () => {
    const runId = newRunId();
    // The run's first call starts streaming, then goes silent (no deltas, no pings) until the
    // client hangs up: a hung connection, which only an idle timeout can tell from a slow answer.
    harness.simulator.faults.add([{ kind: 'stream_stall', runId }]);
    await harness.submit({ runId });
    const run = await harness.waitForRun(runId, 30_000);
    expect(run.status).toBe('succeeded');
    const requests = harness.simulator.requests.filter((request) => request.headers['x-buildfleet-run-id'] === runId);
    const [stalled, retried] = requests;
    expect(stalled).toMatchObject({ fault: 'stream_stall', status: 200, streamed: true });
    await expect.poll(() => stalled!.abandoned).toBe(true);
    // The retry is the same conversation sent again: the stalled call produced no answer to store.
    expect(retried!.conversationHash).toBe(stalled!.conversationHash);
    expect(retried!.abandoned).toBe(false);
    const events = await harness.fleet.store.readEvents(runId);
    const errors = events.filter((event) => event.event === 'model-call-fail');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ outcome: 'transient', status: null, attempt: 1, request_id: stalled!.requestId });
    expect(String(errors[0]!.message)).toMatch(/no event for 300 ms/);
    const firstTurnStarts = events.filter((event) => event.event === 'turn-start').filter((event) => event.step === 0).map((event) => event.attempt);
    expect(firstTurnStarts).toEqual([1, 2]);
  }, 40_000);
});
