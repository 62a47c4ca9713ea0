// No run is ever stuck (issue #16, item 5), through the real queues: tool_use ids of any shape,
// jobs deleted from Redis behind the fleet's back, jobs that fail for good, and the reaper's own
// limits (parked runs, paused queues, runs that moved on, runs it cannot resume).
import { findAgent, SITE_BUILDER } from '../../src/agents/index.js';
import type { Worker } from 'bullmq';
import type { RedisClient } from '../../src/redis/redis-connection.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { jobIds, QUEUE_NAMES } from '../../src/jobs/job-catalog.js';
import { FleetQueues, TOOL_JOB_ATTEMPTS } from '../../src/jobs/fleet-queues.js';
import { QueueShards } from '../../src/jobs/queue-shards.js';
import { connectRedis } from '../../src/redis/redis-connection.js';
import { MISSING_RESULT_CONTENT } from '../../src/agent/turn-input.js';
import { submitRun } from '../../src/fleet/run-commands.js';
import { newRunId } from '../../src/engine/index.js';
import { startToolWorker } from '../../src/workers/tool-worker.js';
import { RunReaper } from '../../src/workers/run-reaper.js';
import { tieredTools } from '../../src/agent/run-model-turn.js';
import { hostileToolUseId, longToolUseId } from '../../src/sim/apply-scenario.js';
import type { InProcessFleet } from '../support/in-process-fleet.js';
import { startInProcessFleet } from '../support/in-process-fleet.js';
import { until } from '../support/until.js';

// A reaper that looks often, so a lost job is found within a test's patience.
const FAST_REAPER = { BUILDFLEET_REAPER_INTERVAL_MS: '200', BUILDFLEET_REAPER_GRACE_MS: '500' };


/**
 * Deletes a job the way a lost write, an eviction or an operator's DEL does: its hash and every
 * list and set of its queue that names it, and nothing BullMQ would do on a removal (a removed
 * child updates its parent; a lost one does not). Raw Redis on purpose: production never does this.
 */
async function loseJob(redis: RedisClient, queuePrefix: string, queue: string, jobId: string): Promise<void> {
  const base = `${queuePrefix}:${queue}`;
  const key = `${base}:${jobId}`;
  await redis
    .multi()
    .lrem(`${base}:wait`, 0, jobId)
    .lrem(`${base}:active`, 0, jobId)
    .lrem(`${base}:paused`, 0, jobId)
    .zrem(`${base}:delayed`, jobId)
    .zrem(`${base}:prioritized`, jobId)
    .zrem(`${base}:waiting-children`, jobId)
    .zrem(`${base}:completed`, jobId)
    .zrem(`${base}:failed`, jobId)
    .del(key, `${key}:lock`, `${key}:logs`, `${key}:dependencies`, `${key}:processed`)
    .exec();
}

const eventsOf = async (harness: InProcessFleet, runId: string) => harness.fleet.store.readEvents(runId, '-', 10_000);

/** The tool_result block that answers `toolUseId` in a stored transcript. */
function toolResultOf(messages: unknown[], toolUseId: string): Record<string, unknown> | undefined {
  for (const message of messages) {
    const content = (message as { content?: unknown }).content;
    if (!Array.isArray(content)) continue;
    const block = (content as Array<Record<string, unknown>>).find((candidate) => candidate.type === 'tool_result' && candidate.tool_use_id === toolUseId);
    if (block) return block;
  }
  return undefined;
}

/** The run waits at turn 1 for its first tool calls (no tool worker runs them yet). */
async function runWaitingForTools(harness: InProcessFleet) {
  const run = await harness.submit({});
  const parentId = jobIds.modelTurn(run.id, 1);
  await until('the turn-1 flow', async () => (await harness.fleet.queues.own.jobState(QUEUE_NAMES.model, parentId)) === 'waiting-children');
  const inspection = await harness.fleet.store.inspectTurn(run.id, 1);
  if (typeof inspection === 'string') throw new Error(`run ${run.id} is ${inspection}`);
  return { run, parentId, toolJobIds: inspection.calls.map(({ call }) => jobIds.tool(run.id, call.toolUseId)) };
}

describe('tool_use ids of any shape', () => {
  let harness: InProcessFleet;
  beforeAll(async () => {
    harness = await startInProcessFleet({ label: 'stuckids', env: FAST_REAPER });
  });
  afterAll(() => harness?.close());

  it('hostile ids (":", "/", spaces, unicode, blank) run their tools, then the run ends with the API’s refusal, not stuck', async () => {
    const run = await harness.waitForRun((await harness.submit({ options: { scenario: 'hostile_tool_use_ids' } })).id, 30_000);
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('model_invalid_request_error');
    expect(run.error?.message).toContain("tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'");
    // Every call with a hostile id ran on a tool worker under a safe job id, and was answered.
    const hostile = hostileToolUseId(0);
    expect(await harness.fleet.store.getStoredToolResult(run.id, hostile)).not.toBeNull();
    const job = await harness.fleet.queues.own.tool.getJob(jobIds.tool(run.id, hostile));
    expect(job?.id).toMatch(/-tool-sha256\.[0-9a-f]{64}$/);
    expect(await job?.getState()).toBe('completed');
    const ended = (await eventsOf(harness, run.id)).filter((event) => event.event === 'run-end');
    expect(ended).toHaveLength(1);
  });

  it('ids of 10,000 characters in the API’s pattern: the run succeeds', async () => {
    const run = await harness.waitForRun((await harness.submit({ options: { scenario: 'long_tool_use_ids' } })).id, 30_000);
    expect(run.status).toBe('succeeded');
    const long = longToolUseId(0);
    expect((await harness.fleet.store.getStoredToolResult(run.id, long))?.is_error).toBe(false);
    expect(await harness.fleet.queues.own.jobState(QUEUE_NAMES.tool, jobIds.tool(run.id, long))).toBe('completed');
  });
});

describe('jobs deleted from Redis behind the fleet’s back', () => {
  let harness: InProcessFleet;
  let toolWorker: Worker | null = null;
  beforeAll(async () => {
    harness = await startInProcessFleet({ label: 'stucklost', env: FAST_REAPER, toolWorkers: 0 });
  });
  afterAll(async () => {
    await toolWorker?.close(true);
    await harness?.close();
  });

  it('a lost tool job is added again under its waiting turn, and the run succeeds', async () => {
    const { run, parentId, toolJobIds } = await runWaitingForTools(harness);
    for (const jobId of toolJobIds) await loseJob(harness.fleet.redis, harness.fleet.queues.own.keys.queuePrefix, QUEUE_NAMES.tool, jobId);
    toolWorker = startToolWorker(harness.fleet, {});
    const ended = await harness.waitForRun(run.id, 30_000);
    expect(ended.status).toBe('succeeded');
    const resumes = (await eventsOf(harness, run.id)).filter((event) => event.event === 'run-resume');
    expect(resumes).toHaveLength(1);
    expect(resumes[0]).toMatchObject({ reason: 'tool_job_missing', job_id: parentId, step: 1, recovery: 1 });
    await toolWorker.close();
    toolWorker = null;
    // The test's own deadline outlasts the 30 s wait inside it: on a loaded machine the set-up and the
    // reaper's sweeps take part of that, and the default 30 s cut the wait short (a CI pass did).
  }, 90_000);

  it('a lost model turn is added again with its own id once its tools finished, and the run succeeds', async () => {
    const { run, parentId, toolJobIds } = await runWaitingForTools(harness);
    await loseJob(harness.fleet.redis, harness.fleet.queues.own.keys.queuePrefix, QUEUE_NAMES.model, parentId);
    toolWorker = startToolWorker(harness.fleet, {});
    const ended = await harness.waitForRun(run.id, 30_000);
    expect(ended.status).toBe('succeeded');
    const resumes = (await eventsOf(harness, run.id)).filter((event) => event.event === 'run-resume');
    expect(resumes).toHaveLength(1);
    expect(resumes[0]).toMatchObject({ reason: 'model_job_missing', job_id: parentId, step: 1 });
    // The tool jobs ran once, before the turn that reads their results was added again.
    for (const jobId of toolJobIds) expect(await harness.fleet.queues.own.jobState(QUEUE_NAMES.tool, jobId)).toBe('completed');
    const todoWrites = (await harness.fleet.store.getTrail(run.id)).filter((entry) => entry.tool === 'todo_write');
    expect(todoWrites).toHaveLength(1);
    await toolWorker.close();
    toolWorker = null;
  }, 90_000);
});

describe('the reaper ends what it cannot resume', () => {
  let harness: InProcessFleet;
  beforeAll(async () => {
    harness = await startInProcessFleet({ label: 'stuckend', env: { ...FAST_REAPER, BUILDFLEET_REAPER_MAX_RECOVERIES: '0' }, toolWorkers: 0 });
  });
  afterAll(() => harness?.close());

  it('a run whose turn and tool jobs are all lost ends run_stalled, once', async () => {
    const { run, parentId, toolJobIds } = await runWaitingForTools(harness);
    const prefix = harness.fleet.queues.own.keys.queuePrefix;
    await loseJob(harness.fleet.redis, prefix, QUEUE_NAMES.model, parentId);
    for (const jobId of toolJobIds) await loseJob(harness.fleet.redis, prefix, QUEUE_NAMES.tool, jobId);
    const ended = await harness.waitForRun(run.id, 30_000);
    expect(ended.status).toBe('failed');
    expect(ended.error?.code).toBe('run_stalled');
    const events = await eventsOf(harness, run.id);
    expect(events.filter((event) => event.event === 'run-end')).toHaveLength(1);
    expect(events.at(-2)).toMatchObject({ event: 'run-stall', code: 'run_stalled' });
    // Its slot in the reaper's work list is gone with it: the hand-over follows the end's script
    // (docs/architecture.md, "end a run"), so it is awaited, not read in the same instant.
    await vi.waitFor(async () => expect(await harness.fleet.redis.zscore(harness.fleet.store.keys.liveRuns(), run.id)).toBeNull(), { timeout: 10_000, interval: 50 });
  });
});

describe('what the reaper leaves alone', () => {
  let harness: InProcessFleet;
  let reaper: RunReaper;
  beforeAll(async () => {
    // No reaper of its own: the test sweeps, with a clock far ahead so every run is past the grace.
    harness = await startInProcessFleet({ label: 'stuckcalm', env: { BUILDFLEET_REAPER_INTERVAL_MS: '0' } });
    reaper = new RunReaper({ store: harness.fleet.store, queues: harness.fleet.queues, logger: harness.fleet.logger }, { intervalMs: 0, graceMs: 500, maxRecoveries: 3 });
  });
  afterAll(() => harness?.close());
  const later = () => Date.now() + 3_600_000;

  it('a run parked for input', async () => {
    const run = await harness.waitForRun((await harness.submit({ options: { scenario: 'ask_user' } })).id);
    expect(run.status).toBe('waiting_for_input');
    const report = await reaper.sweep(later());
    expect(report.resumed).not.toContain(run.id);
    expect(report.ended).not.toContain(run.id);
    expect((await harness.fleet.store.getRun(run.id))?.status).toBe('waiting_for_input');
  });

  it('every run while an operator paused a queue', async () => {
    await harness.fleet.queues.own.model.pause();
    try {
      const run = await harness.submit({});
      const report = await reaper.sweep(later());
      expect(report.skipped).toBe('paused');
      expect((await harness.fleet.store.getRun(run.id))?.status).toBe('queued');
    } finally {
      await harness.fleet.queues.own.model.resume();
    }
  });

  it('a run that ended or changed since the reaper looked: neither a resume nor an end takes effect', async () => {
    const run = await harness.submit({});
    const inspection = await harness.fleet.store.inspectTurn(run.id, 0);
    if (typeof inspection === 'string') throw new Error(`run is ${inspection}`);
    const finished = await harness.waitForRun(run.id);
    expect(finished.status).toBe('succeeded');
    // What the reaper saw at turn 0 no longer holds: neither a resume nor an end takes effect.
    const seen = { turn: 0, updatedAt: inspection.updatedAt, recoveries: 0 };
    expect(await harness.fleet.store.resumeTurn(run.id, seen, { jobId: 'x', reason: 'model_job_missing', detail: {} })).toBe('terminal');
    const live = await harness.submit({ options: { scenario: 'ask_user' } });
    await harness.waitForRun(live.id);
    const parked = await harness.fleet.store.getRun(live.id);
    expect(await harness.fleet.store.endRunIfUnchanged(live.id, { turn: parked!.turn, updatedAt: 'an older transition' }, { code: 'run_stalled', message: 'x' })).toBe('changed');
    expect(await harness.fleet.store.resumeTurn(live.id, { turn: parked!.turn, updatedAt: parked!.updatedAt, recoveries: 0 }, { jobId: 'x', reason: 'model_job_missing', detail: {} })).toBe('changed');
  });
});

describe('a job that fails for good', () => {
  it('a model turn whose every attempt fails ends its run: job_attempts_exhausted, with the job named', async () => {
    const harness = await startInProcessFleet({
      label: 'stuckmodel',
      env: { BUILDFLEET_MODEL_ATTEMPTS: '2', BUILDFLEET_RETRY_BASE_MS: '20', BUILDFLEET_REAPER_INTERVAL_MS: '0' },
      modelWorker: {
        // A bug past the first phase: every attempt of the first building turn throws.
        toolsFor: (phase) => {
          if (phase === 'building') throw new Error('no tool tier for building');
          return tieredTools(findAgent(SITE_BUILDER)!, phase);
        },
      },
    });
    try {
      const run = await harness.waitForRun((await harness.submit({})).id, 30_000);
      expect(run.status).toBe('failed');
      expect(run.error?.code).toBe('job_attempts_exhausted');
      expect(run.error?.message).toMatch(/^The model job run_\w+-turn-\d+ \(turn \d+\) failed for good after 2 attempt\(s\): no tool tier for building$/);
      const events = await eventsOf(harness, run.id);
      expect(events.at(-2)).toMatchObject({ event: 'job-fail', queue: 'model', attempts_made: 2 });
      expect(events.filter((event) => event.event === 'run-end')).toHaveLength(1);
    } finally {
      await harness.close();
    }
  });

  it('a tool call whose every attempt fails outside the tool does not end the run: the model is told, and the run goes on', async () => {
    // Every attempt of the first deploy job fails outside the tool (its write guard is unreachable);
    // the next deploy, with a new tool_use id, goes through.
    let deployGuards = 0;
    const harness = await startInProcessFleet({
      label: 'stucktool',
      env: { BUILDFLEET_REAPER_INTERVAL_MS: '0' },
      toolWorker: {
        writeGuard: async (_run, toolName) => {
          if (toolName === 'deploy' && ++deployGuards <= TOOL_JOB_ATTEMPTS) throw new Error('write guard unreachable');
          return null;
        },
      },
    });
    try {
      const run = await harness.waitForRun((await harness.submit({})).id, 30_000);
      // Tool failures are data: the run ended by its own course, not by the failed job.
      expect(run.status).toBe('succeeded');
      expect(run.error).toBeNull();
      const events = await eventsOf(harness, run.id);
      expect(events.filter((event) => event.event === 'job-fail')).toHaveLength(0);
      expect(events.filter((event) => event.event === 'run-end')).toHaveLength(1);
      // The turn after the failure ran without the call's result and answered it as failed.
      const missing = events.filter((event) => event.event === 'tool-result-miss');
      expect(missing).toHaveLength(1);
      const [toolUseId] = missing[0]!.tool_use_ids as string[];
      const job = await harness.fleet.queues.own.tool.getJob(jobIds.tool(run.id, toolUseId!));
      expect(job?.name).toBe('deploy');
      expect(await job?.getState()).toBe('failed');
      expect(job?.attemptsMade).toBe(TOOL_JOB_ATTEMPTS);
      expect(job?.failedReason).toBe('write guard unreachable');
      expect(toolResultOf(await harness.fleet.store.getMessages(run.id), toolUseId!)).toEqual({ type: 'tool_result', tool_use_id: toolUseId, content: MISSING_RESULT_CONTENT, is_error: true });
      expect(MISSING_RESULT_CONTENT).toBe(
        `<tool_output trust="untrusted">\nError (job_attempts_exhausted): The tool gave no result: its job failed after ${TOOL_JOB_ATTEMPTS} attempts (the tool worker or its infrastructure failed, not the tool's answer). Treat the call as failed.\n</tool_output>`,
      );
      // The model called deploy again, and that one went through.
      const deploys = (await harness.fleet.store.getTrail(run.id)).filter((entry) => entry.tool === 'deploy');
      expect(deploys.some((entry) => entry.ok && entry.toolUseId !== toolUseId)).toBe(true);
    } finally {
      await harness.close();
    }
  });
});

describe('a run whose first turn cannot be enqueued', () => {
  let harness: InProcessFleet;
  beforeAll(async () => {
    // No reaper of its own: the test sweeps, with a clock far ahead of the run's grace.
    harness = await startInProcessFleet({ label: 'stuckenqueue', env: { BUILDFLEET_REAPER_INTERVAL_MS: '0' }, toolWorkers: 0 });
  });
  afterAll(() => harness?.close());

  it('ends enqueue_failed before the submission fails, so the reaper never starts it', async () => {
    // The queues over a connection that was closed: the run's record is written through the
    // fleet's own connection, its turn-0 job cannot be (BullMQ: "Connection is closed.").
    const closed = connectRedis(harness.fleet.config.REDIS_URL);
    await closed.quit();
    const brokenQueues = new QueueShards((queuePrefix) => new FleetQueues(closed, { queuePrefix }), harness.fleet.config.BUILDFLEET_PREFIX, 1, 0);
    const runId = newRunId();
    await expect(submitRun({ ...harness.fleet, queues: brokenQueues }, { tenant: 'default', prompt: 'Build a bakery site', runId })).rejects.toThrow('Connection is closed');

    const run = await harness.fleet.store.getRun(runId);
    expect(run?.status).toBe('failed');
    expect(run?.error?.code).toBe('enqueue_failed');
    const events = await eventsOf(harness, runId);
    expect(events.map((event) => event.event)).toEqual(['run-create', 'run-end']);
    expect(events[1]).toMatchObject({ status: 'failed', error_code: 'enqueue_failed' });
    expect(await harness.fleet.redis.zscore(harness.fleet.store.keys.liveRuns(), runId)).toBeNull();

    // Even with the run back in the live-run index (as a failed ZREM would leave it), a sweep long
    // after the grace forgets it rather than resuming it.
    await harness.fleet.redis.zadd(harness.fleet.store.keys.liveRuns(), Date.now(), runId);
    const reaper = new RunReaper({ store: harness.fleet.store, queues: harness.fleet.queues, logger: harness.fleet.logger }, { intervalMs: 0, graceMs: 500, maxRecoveries: 3 });
    const report = await reaper.sweep(Date.now() + 3_600_000);
    expect(report.resumed).not.toContain(runId);
    expect(await harness.fleet.queues.own.jobState(QUEUE_NAMES.model, jobIds.modelTurn(runId, 0))).toBe('unknown');
    expect((await harness.fleet.store.getRun(runId))?.status).toBe('failed');
    await brokenQueues.close().catch(() => undefined);
  });
});
