// POST /v1/runs/:id/resume of a run whose next turn's model job failed for good before that turn
// started (issue #18, review finding 1), through the real queue, Redis, simulator and HTTP: turn 0
// committed its answer and handed out its tool calls; the job of turn 1 (`<run>-turn-1`, the flow
// parent) then fails every attempt before it reaches startTurn — its data does not decode — and the
// run ends `job_attempts_exhausted`. The failed job keeps its id in BullMQ (kept failed for days),
// so a resume must carry the turn under a job id of its own and actually run it: the run finishes,
// with no tool effect repeated and no turn paid twice.
import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIds, QUEUE_NAMES } from '../../src/jobs/job-catalog.js';
import { startToolWorker } from '../../src/workers/tool-worker.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';
import { until } from '../support/until.js';

let harness: InProcessFleet;
let toolWorker: Worker | null = null;

beforeAll(async () => {
  harness = await startInProcessFleet({
    label: 'resumeunstarted',
    // No tool worker at first: the test changes the turn-1 job while it waits for its tools. No
    // reaper: the run's end must come from the failed job alone, and nothing but the resume may
    // hand its turn on.
    toolWorkers: 0,
    env: { BUILDFLEET_MODEL_ATTEMPTS: '2', BUILDFLEET_RETRY_BASE_MS: '20', BUILDFLEET_REAPER_INTERVAL_MS: '0' },
  });
});
afterAll(async () => {
  await toolWorker?.close();
  await harness?.close();
});

const requestsOf = (runId: string) => harness.simulator.requests.filter((request) => request.path === '/v1/messages' && request.headers['x-buildfleet-run-id'] === runId);
const messageCount = (request: { body: unknown }) => ((request.body as { messages?: unknown[] }).messages ?? []).length;

describe('resume of a run whose next turn’s job failed before the turn started', () => {
  it('runs the turn under a job of its own and finishes the run: no effect repeated, no turn paid twice', async () => {
    const store = harness.fleet.store;
    const run = await harness.submit({});
    const failingJobId = jobIds.modelTurn(run.id, 1);
    await until('the turn-1 flow waiting for its tools', async () => (await harness.fleet.queues.own.jobState(QUEUE_NAMES.model, failingJobId)) === 'waiting-children');
    // Data that does not decode (the job catalog's schema is strict): every attempt of the job
    // fails in the worker before the turn is loaded, let alone started. It still names its run
    // and turn, so the last failure ends the run.
    const job = (await harness.fleet.queues.own.model.getJob(failingJobId))!;
    await job.updateData({ ...job.data, injectedFault: 'data that does not decode' } as typeof job.data);
    toolWorker = startToolWorker(harness.fleet, {});

    const failed = await harness.waitForRun(run.id, 60_000);
    expect(failed.status).toBe('failed');
    expect(failed.error?.code).toBe('job_attempts_exhausted');
    expect(failed.error?.message).toContain(`The model job ${failingJobId} (turn 1) failed for good after 2 attempt(s)`);
    expect(await harness.fleet.queues.own.jobState(QUEUE_NAMES.model, failingJobId)).toBe('failed');
    // Turn 1 never started: one model call so far, turn 0's.
    expect(requestsOf(run.id)).toHaveLength(1);
    const toolEndsBefore = (await store.readEvents(run.id, '-', 10_000)).filter((event) => event.event === 'tool-call-end');
    expect(toolEndsBefore.length).toBeGreaterThan(0);
    const trailBefore = await store.getTrail(run.id);

    const resumed = await fetch(`${harness.apiUrl}/v1/runs/${run.id}/resume`, { method: 'POST', headers: { authorization: `Bearer ${harness.apiKey}` } });
    expect(resumed.status).toBe(202);
    expect(await resumed.json()).toMatchObject({ id: run.id, status: 'running' });
    const done = await harness.waitForRun(run.id, 60_000);
    expect(done.status).toBe('succeeded');
    expect(done.error).toBeNull();

    const events = await store.readEvents(run.id, '-', 10_000);
    // The turn was carried by the resume's own job, not the failed one (which stays failed).
    const reopens = events.filter((event) => event.event === 'run-reopen');
    expect(reopens).toEqual([expect.objectContaining({ step: 1, error_code: 'job_attempts_exhausted', reopen: 1, job_id: jobIds.modelReopen(run.id, 1, 1) })]);
    expect(await harness.fleet.queues.own.jobState(QUEUE_NAMES.model, failingJobId)).toBe('failed');
    expect(events.filter((event) => event.event === 'run-end').map((event) => event.status)).toEqual(['failed', 'succeeded']);

    // No turn paid twice: every answered call carries a transcript of its own length, and each
    // answer was committed once.
    const answered = requestsOf(run.id).filter((request) => request.status === 200);
    const lengths = answered.map(messageCount);
    expect(new Set(lengths).size).toBe(lengths.length);
    expect(events.filter((event) => event.event === 'model-call-end')).toHaveLength(answered.length);
    // No effect repeated: every tool call ended once, turn 0's before the failure among them, and
    // the trail before the failure is the start of the trail after it.
    const toolEnds = events.filter((event) => event.event === 'tool-call-end').map((event) => event.tool_use_id);
    expect(new Set(toolEnds).size).toBe(toolEnds.length);
    for (const end of toolEndsBefore) expect(toolEnds).toContain(end.tool_use_id);
    expect((await store.getTrail(run.id)).slice(0, trailBefore.length)).toEqual(trailBefore);
    // The turn-1 input answered turn 0's calls from the ledger: none was reported missing.
    expect(events.filter((event) => event.event === 'tool-result-miss')).toHaveLength(0);
  });
});
