// A run of an agent the worker does not load (roles deployed with different BUILDFLEET_AGENT_MODULES,
// docs/agents.md#deploying-agents): its jobs go back to the queue for a worker that has the agent —
// never run with another agent's tools and gate — and when no worker has it, the run fails once its
// attempts are spent, saying which agent, with no model call made for it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

let harness: InProcessFleet;
beforeAll(async () => {
  harness = await startInProcessFleet({ label: 'agentnotserved', env: { BUILDFLEET_MODEL_ATTEMPTS: '2', BUILDFLEET_RETRY_BASE_MS: '20' } });
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
