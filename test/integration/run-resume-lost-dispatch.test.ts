// POST /v1/runs/:id/resume of a run whose turn committed its answer (with tool calls) and then
// failed for good while handing those calls to the queue (issue #18), through the real queue,
// Redis, simulator and HTTP. Turn 1 (the builder's style step: set_colors and set_fonts in
// parallel) commits its answer, which moves the run's record to turn 2; every attempt of its job
// then fails in the dispatch (the queue refuses the flow, as an unreachable Redis would), so no
// tool job and no turn-2 job exist, and the run ends `job_attempts_exhausted`. One of the two calls
// had run all the same (its result is in the ledger; its job is gone, as a job removed or lost is).
// The resume reopens turn 2: it must hand out the call that never ran, under its deterministic tool
// job id, as a child of the reopen job, leave the one that ran to the ledger, and the run finishes
// with each committed call run exactly once and none reported missing to the model.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIds, QUEUE_NAMES, type ModelJobData, type ToolJobData } from '../../src/jobs/job-catalog.js';
import { runToolJob } from '../../src/tools/run-tool-job.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

let harness: InProcessFleet;

beforeAll(async () => {
  harness = await startInProcessFleet({
    label: 'resumelostdispatch',
    // No reaper: the run's end must come from the failed job alone, and nothing but the resume may
    // hand its turn on or its calls out.
    env: { BUILDFLEET_MODEL_ATTEMPTS: '2', BUILDFLEET_RETRY_BASE_MS: '20', BUILDFLEET_REAPER_INTERVAL_MS: '0' },
  });
});
afterAll(async () => {
  await harness?.close();
});

type ToolResultBlock = { type: string; tool_use_id?: string; is_error?: boolean };
const requestsOf = (runId: string) => harness.simulator.requests.filter((request) => request.path === '/v1/messages' && request.headers['x-buildfleet-run-id'] === runId);
const messagesOf = (request: { body: unknown }) => (request.body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
const messageCount = (request: { body: unknown }) => messagesOf(request).length;
/** The tool_result blocks of a request's last message: what that turn told the model of the calls before it. */
const toolResultsOf = (request: { body: unknown }) => {
  const last = messagesOf(request).at(-1);
  return Array.isArray(last?.content) ? (last.content as ToolResultBlock[]).filter((block) => block.type === 'tool_result') : [];
};

describe('resume of a run whose turn failed while handing out its committed calls', () => {
  it('hands out the calls that never ran, leaves the ones that ran to the ledger, and finishes the run', async () => {
    const store = harness.fleet.store;
    const queues = harness.fleet.queues.own;
    const original = queues.enqueueToolFanOut.bind(queues);
    const refused: ToolJobData[][] = [];
    // The dispatch of turn 1 (its calls, with turn 2 as their flow parent) is refused by the queue
    // every attempt. Before the first refusal one call runs through the tool job's own code (its
    // result and events recorded as a tool worker records them): a call that ran, whose job is gone.
    queues.enqueueToolFanOut = async (next: ModelJobData, tools: ToolJobData[], options?: { mayExist?: boolean; parentJobId?: string }) => {
      if (next.turn !== 2) return original(next, tools, options);
      if (refused.length === 0) {
        const ran = await runToolJob({ store, config: harness.fleet.config, logger: harness.fleet.logger, publicBaseUrl: harness.fleet.sitesBaseUrl }, tools[0]!, { attemptsMade: 0, maxAttempts: 1 });
        expect(ran).toMatchObject({ kind: 'recorded', cached: false, result: { is_error: false } });
      }
      refused.push(tools);
      throw new Error('injected fault: the queue refused the flow');
    };
    let run;
    let failed;
    try {
      run = await harness.submit({});
      failed = await harness.waitForRun(run.id, 60_000);
    } finally {
      queues.enqueueToolFanOut = original;
    }
    expect(failed.status).toBe('failed');
    expect(failed.error?.code).toBe('job_attempts_exhausted');
    expect(failed.error?.message).toContain(`The model job ${jobIds.modelTurn(run.id, 1)} (turn 1) failed for good after 2 attempt(s): injected fault`);
    // The first attempt dispatched after its commit, the second replayed the committed dispatch.
    expect(refused).toHaveLength(2);
    const calls = refused[0]!;
    expect(calls.map((call) => call.name).sort()).toEqual(['set_colors', 'set_fonts']);
    expect(refused[1]!.map((call) => call.toolUseId)).toEqual(calls.map((call) => call.toolUseId));
    const [ranCall, lostCall] = [calls[0]!, calls[1]!];
    // The commit moved the record to turn 2; no tool job and no turn-2 job exist; turn 2 never called.
    expect(failed.turn).toBe(2);
    for (const call of calls) expect(await queues.jobState(QUEUE_NAMES.tool, jobIds.tool(run.id, call.toolUseId))).toBe('unknown');
    expect(await queues.jobState(QUEUE_NAMES.model, jobIds.modelTurn(run.id, 2))).toBe('unknown');
    expect(requestsOf(run.id)).toHaveLength(2);
    const endsBefore = (await store.readEvents(run.id, '-', 10_000)).filter((event) => event.event === 'tool-call-end').map((event) => event.tool_use_id);
    expect(endsBefore).toContain(ranCall.toolUseId);
    expect(endsBefore).not.toContain(lostCall.toolUseId);
    const trailBefore = await store.getTrail(run.id);

    const resumed = await fetch(`${harness.apiUrl}/v1/runs/${run.id}/resume`, { method: 'POST', headers: { authorization: `Bearer ${harness.apiKey}` } });
    expect(resumed.status).toBe(202);
    expect(await resumed.json()).toMatchObject({ id: run.id, status: 'running' });
    const done = await harness.waitForRun(run.id, 60_000);
    expect(done.status).toBe('succeeded');
    expect(done.error).toBeNull();

    const events = await store.readEvents(run.id, '-', 10_000);
    const reopenJobId = jobIds.modelReopen(run.id, 2, 1);
    expect(events.filter((event) => event.event === 'run-reopen')).toEqual([expect.objectContaining({ step: 2, error_code: 'job_attempts_exhausted', reopen: 1, job_id: reopenJobId })]);
    expect(events.filter((event) => event.event === 'run-end').map((event) => event.status)).toEqual(['failed', 'succeeded']);
    // The lost call was handed out under its own job id, as a child of the reopen job; the call that
    // ran got no job.
    const lostJob = await queues.tool.getJob(jobIds.tool(run.id, lostCall.toolUseId));
    expect(lostJob?.parent?.id).toBe(reopenJobId);
    expect(await lostJob?.getState()).toBe('completed');
    expect(await queues.jobState(QUEUE_NAMES.tool, jobIds.tool(run.id, ranCall.toolUseId))).toBe('unknown');

    // Each committed call ran exactly once: one start and one end each.
    for (const call of calls) {
      for (const name of ['tool-call-start', 'tool-call-end']) {
        expect(events.filter((event) => event.event === name && 'tool_use_id' in event && event.tool_use_id === call.toolUseId), `${name} of ${call.name}`).toHaveLength(1);
      }
    }
    // Turn 2 told the model both real results: none missing, none an error.
    expect(events.filter((event) => event.event === 'tool-result-miss')).toHaveLength(0);
    const turn2 = requestsOf(run.id).find((request) => toolResultsOf(request).some((block) => block.tool_use_id === lostCall.toolUseId));
    expect(toolResultsOf(turn2!).map((block) => [block.tool_use_id, block.is_error ?? false])).toEqual(calls.map((call) => [call.toolUseId, false]));

    // No turn paid twice; the trail before the failure is the start of the trail after it.
    const answered = requestsOf(run.id).filter((request) => request.status === 200);
    const lengths = answered.map(messageCount);
    expect(new Set(lengths).size).toBe(lengths.length);
    expect(events.filter((event) => event.event === 'model-call-end')).toHaveLength(answered.length);
    expect((await store.getTrail(run.id)).slice(0, trailBefore.length)).toEqual(trailBefore);
  });
});
