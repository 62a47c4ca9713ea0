// A run of an agent the worker does not load (roles deployed with different BUILDFLEET_AGENT_MODULES,
// docs/agents.md#deploying-agents): its jobs go back to the queue for a worker that has the agent —
// never run with another agent's tools and gate — and when no worker has it, the run fails once its
// attempts are spent, saying which agent, with no model call made for it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAgent } from '../../src/agents/index.js';
import { jobIds, toolJobSchema } from '../../src/jobs/job-catalog.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

let harness: InProcessFleet;
beforeAll(async () => {
  harness = await startInProcessFleet({
    label: 'agentnotserved',
    env: { BUILDFLEET_MODEL_ATTEMPTS: '2', BUILDFLEET_RETRY_BASE_MS: '20', BUILDFLEET_REAPER_INTERVAL_MS: '0' },
  });
});
afterAll(async () => harness?.close());

describe('a run of an agent this fleet does not load', () => {
  it('is left by every worker and fails when its attempts are spent, naming the agent, without a model call', async () => {
    const { store, queues } = harness.fleet;
    // As a role of another deploy created it: only the record and its first turn.
    const run = await store.createRun({ tenant: 'default', prompt: 'hello', agent: 'ghost-agent', initialPhase: 'haunting', model: harness.config.BUILDFLEET_MODEL, maxTurns: 3, maxTokens: 1024, options: {} });
    await queues.of(run.queueShard).enqueueTurn({ runId: run.id, turn: 0, trace: {} });
    const ended = await harness.waitForRun(run.id, 60_000);
    expect(ended.status).toBe('failed');
    expect(ended.error?.code).toBe('job_attempts_exhausted');
    expect(ended.error?.message).toContain('does not load agent "ghost-agent"');
    expect(ended.phase).toBe('haunting');
    expect(harness.simulator.requests.filter((request) => request.path === '/v1/messages')).toEqual([]);
  }, 90_000);
});

describe('a tool call made from another definition of the tool', () => {
  it('is left by a tool worker whose definition differs, never run, and runs where the definitions agree', async () => {
    const { store, queues } = harness.fleet;
    const run = await store.createRun({ tenant: 'default', prompt: 'direct tool calls', model: harness.config.BUILDFLEET_MODEL, maxTurns: 10, maxTokens: 1024, options: {} });
    await store.updateRun(run.id, { status: 'running', phase: 'building' });
    const call = async (toolFingerprint: string) => {
      const toolUseId = `toolu_${randomBytes(8).toString('hex')}`;
      const data = toolJobSchema.parse({ runId: run.id, turn: 1, toolUseId, name: 'set_fonts', input: { heading: 'Lora', body: 'Inter' }, parseMode: 'native', trace: {}, toolFingerprint });
      const job = await queues.own.tool.add('set_fonts', data, { jobId: jobIds.tool(run.id, toolUseId), attempts: 2, backoff: { type: 'fixed', delay: 20 } });
      return { toolUseId, job };
    };
    // As a model worker of another version offered it: the same tool, another meaning.
    const stranger = await call('0123456789abcdef');
    for (let state = await stranger.job.getState(); state !== 'failed'; state = await stranger.job.getState()) await new Promise((resolve) => setTimeout(resolve, 50));
    const failed = await queues.own.tool.getJob(stranger.job.id!);
    expect(failed?.failedReason).toContain('differs from the one its tool "set_fonts" was offered from');
    expect(await store.getStoredToolResult(run.id, stranger.toolUseId)).toBeNull();
    expect((await store.readEvents(run.id, '-', 1000)).filter((event) => event.event === 'tool-call-start')).toEqual([]);

    const own = await call(findAgent('site-builder')!.tools.get('set_fonts')!.fingerprint);
    for (let stored = null; !stored; await new Promise((resolve) => setTimeout(resolve, 20))) {
      stored = await store.getStoredToolResult(run.id, own.toolUseId);
      if (stored) expect(stored).toMatchObject({ is_error: false, output: { fonts: { heading: 'Lora', body: 'Inter' } } });
    }
  }, 90_000);
});
