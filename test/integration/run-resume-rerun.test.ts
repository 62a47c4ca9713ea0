// POST /v1/runs/:id/resume and /rerun over real HTTP, through the real queue, Redis and the
// simulator: a build that fails on a simulated model outage mid-run is resumed from its failed
// turn — no committed turn called (and paid) again, no tool effect repeated, one more run end
// counted — and only resumable failures are; a rerun starts the same input as a new, linked run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRunId } from '../../src/engine/index.js';
import { ApiKeyStore } from '../../src/auth/api-key-store.js';
import { FleetMetrics } from '../../src/fleet/fleet-metrics.js';
import { tenantPolicyStore } from '../../src/fleet/tenant-account.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

let harness: InProcessFleet;
let otherTenantKey: string;

beforeAll(async () => {
  harness = await startInProcessFleet({
    label: 'resume',
    env: { BUILDFLEET_RETRY_BASE_MS: '20' },
    metrics: new FleetMetrics({ role: 'test', defaultMetrics: false }),
  });
  ({ token: otherTenantKey } = await new ApiKeyStore({ redis: harness.fleet.redis, keys: harness.fleet.store.keys }).create({ tenant: 'other', scopes: ['runs:read', 'runs:write'] }));
});
afterAll(async () => {
  await harness?.close();
});

async function post(path: string, { key = harness.apiKey, body, headers = {} }: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const response = await fetch(`${harness.apiUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const body = await (await fetch(`${harness.apiUrl}/metrics`, { headers: { authorization: `Bearer ${harness.apiKey}` } })).text();
  let total = 0;
  for (const line of body.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

const requestsOf = (runId: string) => harness.simulator.requests.filter((request) => request.path === '/v1/messages' && request.headers['x-buildfleet-run-id'] === runId);
const messageCount = (request: { body: unknown }) => ((request.body as { messages?: unknown[] }).messages ?? []).length;

/** Whether the run holds a slot under its tenant's active-run cap, once the end's bookkeeping (the
 * SREM right after the ending script) has had its moment: polled, bounded generously. */
async function holdsSlot(runId: string): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const held = await harness.fleet.store.holdsAdmissionSlot({ tenant: 'default', runId });
    if (!held || Date.now() > deadline) return held;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Waits for the run to leave the status it has now (the fleet polls; bounded generously). */
async function waitForEnd(runId: string) {
  return harness.waitForRun(runId, 60_000);
}

/** A run that fails `model_unavailable` at turn `turn`: its first `turn` calls answer, then the
 * model API answers 503 to every attempt of the next (BUILDFLEET_MODEL_ATTEMPTS = 5). */
async function runFailingAtTurn(turn: number): Promise<string> {
  const runId = newRunId();
  harness.simulator.faults.add([
    ...(turn > 0 ? [{ kind: 'slow' as const, delayMs: 0, runId, count: turn }] : []),
    { kind: 'server_error', status: 503, runId, count: 5 },
  ]);
  await harness.submit({ runId });
  const failed = await waitForEnd(runId);
  expect(failed.status).toBe('failed');
  expect(failed.error?.code).toBe('model_unavailable');
  return runId;
}

describe('POST /v1/runs/:id/resume', () => {
  it('continues a build that failed on a model outage from its failed turn: nothing paid or done twice', async () => {
    const runId = await runFailingAtTurn(3);
    const store = harness.fleet.store;
    const failed = (await store.getRun(runId))!;
    expect(failed.turn).toBe(3);
    const journalBefore = await store.getWriteJournal(runId);
    expect(journalBefore.length).toBeGreaterThan(0);
    const endedFailed = await metric('buildfleet_runs_ended_total', { status: 'failed', error_code: 'model_unavailable' });
    const endedSucceeded = await metric('buildfleet_runs_ended_total', { status: 'succeeded' });

    const resumed = await post(`/v1/runs/${runId}/resume`);
    expect(resumed).toMatchObject({ status: 202, body: { id: runId, status: 'running' } });
    const done = await waitForEnd(runId);
    expect(done.status).toBe('succeeded');
    expect(done.error).toBeNull();

    // The simulator's log: three answered calls, five failed attempts of turn 3, then turn 3 once
    // more and the rest. Every answered call carries a transcript of its own length: no turn's
    // request was sent (and paid for) twice; the resumed call is the failed turn's very request.
    const requests = requestsOf(runId);
    expect(requests.slice(0, 8).map((request) => request.status)).toEqual([200, 200, 200, 503, 503, 503, 503, 503]);
    const answered = requests.filter((request) => request.status === 200);
    const lengths = answered.map(messageCount);
    expect(new Set(lengths).size).toBe(lengths.length);
    expect(messageCount(requests[8]!)).toBe(messageCount(requests[3]!));
    expect(requests[8]!.body).toEqual(requests[3]!.body);

    // Cost is the sum of the answers, each committed once.
    const events = await store.readEvents(runId, '-', 10_000);
    const responses = events.filter((event) => event.event === 'model-call-end');
    expect(responses).toHaveLength(answered.length);
    const answersMicroUsd = responses.reduce((sum, event) => sum + Math.round((event.cost_usd as number) * 1_000_000), 0);
    expect(done.costMicroUsd).toBe(answersMicroUsd);

    // No effect repeated: the writes before the failure are the journal's start, each once, and
    // every tool call ran once (one tool-call-end per tool_use id).
    const journalAfter = await store.getWriteJournal(runId);
    expect(journalAfter.slice(0, journalBefore.length)).toEqual(journalBefore);
    const toolEnds = events.filter((event) => event.event === 'tool-call-end').map((event) => event.tool_use_id);
    expect(new Set(toolEnds).size).toBe(toolEnds.length);

    // Two ends, each once: the failure and the success; one reopen between them.
    expect(events.filter((event) => event.event === 'run-end').map((event) => event.status)).toEqual(['failed', 'succeeded']);
    expect(events.filter((event) => event.event === 'run-reopen')).toEqual([expect.objectContaining({ step: 3, error_code: 'model_unavailable', reopen: 1, job_id: `${runId}-turn-3-reopen-1` })]);
    expect(await metric('buildfleet_runs_ended_total', { status: 'failed', error_code: 'model_unavailable' })).toBe(endedFailed);
    expect(await metric('buildfleet_runs_ended_total', { status: 'succeeded' })).toBe(endedSucceeded + 1);
    // Its slot given back at the second end (the end's last step), and the run handed from the
    // live index to the archive's list again.
    expect(await holdsSlot(runId)).toBe(false);
    expect(await harness.fleet.redis.zscore(store.keys.liveRuns(), runId)).toBeNull();
    expect(await harness.fleet.redis.zscore(store.keys.unarchivedRuns(), runId)).not.toBeNull();
  });

  it('refuses a failure no new call can mend, a run that did not fail, and another tenant’s run', async () => {
    const invalid = newRunId();
    harness.simulator.faults.add({ kind: 'bad_request', runId: invalid });
    await harness.submit({ runId: invalid });
    expect((await waitForEnd(invalid)).error?.code).toBe('model_invalid_request_error');
    const refused = await post(`/v1/runs/${invalid}/resume`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'run_not_resumable' });
    expect(String((refused.body.error as { message: string }).message)).toContain('model_invalid_request_error');
    // Refused before anything was written: still failed, no reopen, no slot taken.
    expect((await harness.fleet.store.getRun(invalid))!.status).toBe('failed');
    expect((await harness.fleet.store.readEvents(invalid)).some((event) => event.event === 'run-reopen')).toBe(false);
    expect(await holdsSlot(invalid)).toBe(false);

    const succeeded = await harness.submit({});
    expect((await waitForEnd(succeeded.id)).status).toBe('succeeded');
    const notFailed = await post(`/v1/runs/${succeeded.id}/resume`);
    expect(notFailed.status).toBe(409);
    expect(notFailed.body.error).toMatchObject({ code: 'run_not_resumable', message: expect.stringContaining('succeeded') });

    const outage = await runFailingAtTurn(0);
    const foreign = await post(`/v1/runs/${outage}/resume`, { key: otherTenantKey });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ code: 'run_not_found' });
    expect((await harness.fleet.store.getRun(outage))!.status).toBe('failed');
    expect((await post(`/v1/runs/${newRunId()}/resume`)).status).toBe(404);
  });

  it('holds a resume to the tenant’s policy as it stands now, as a new run would be', async () => {
    const outage = await runFailingAtTurn(0);
    const run = (await harness.fleet.store.getRun(outage))!;
    const policies = tenantPolicyStore(harness.fleet);
    // The model the run runs on, since taken off the tenant's allow-list (which binds every key of
    // the tenant, admin keys included, as for a new run).
    const other = run.model === 'claude-haiku-4-5' ? 'claude-sonnet-4-5' : 'claude-haiku-4-5';
    await policies.put('default', { allowedModels: [other] });
    try {
      const refused = await post(`/v1/runs/${outage}/resume`);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'model_not_allowed' });
      expect((await harness.fleet.store.getRun(outage))!.status).toBe('failed');
      expect(await holdsSlot(outage)).toBe(false);
    } finally {
      await policies.put('default', {});
    }
    expect((await post(`/v1/runs/${outage}/resume`)).status).toBe(202);
    expect((await waitForEnd(outage)).status).toBe('succeeded');
  });

  it('resumes once when two resumes race', async () => {
    const runId = await runFailingAtTurn(1);
    const answers = await Promise.all([post(`/v1/runs/${runId}/resume`), post(`/v1/runs/${runId}/resume`)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409]);
    expect(answers.find((answer) => answer.status === 409)!.body.error).toMatchObject({ code: 'run_not_resumable' });
    // The loser did not give back the slot the winner's run holds: a run that has not ended yet
    // holds it (one that ended already gave it back itself). The slot is read before the status
    // (two keys of two Cluster slots cannot be read in one step): a run running at the second read
    // was running at the first, since it only goes on from running to its end.
    const store = harness.fleet.store;
    const member = await store.holdsAdmissionSlot({ tenant: 'default', runId });
    const status = await harness.fleet.redis.hget(store.keys.run(runId), 'status');
    if (status === 'running') expect(member).toBe(true);
    expect((await waitForEnd(runId)).status).toBe('succeeded');
    const events = await harness.fleet.store.readEvents(runId, '-', 10_000);
    expect(events.filter((event) => event.event === 'run-reopen')).toHaveLength(1);
    expect(events.filter((event) => event.event === 'run-end')).toHaveLength(2);
    // Nor did it leave a slot behind once the run ended.
    expect(await holdsSlot(runId)).toBe(false);
  });
});

describe('POST /v1/runs/:id/rerun', () => {
  it('starts the same input as a new run linked to the original, edited where the body says', async () => {
    const original = await harness.submit({ prompt: 'A one-page site for a bicycle repair shop', maxTurns: 30 });
    expect((await waitForEnd(original.id)).status).toBe('succeeded');

    const rerun = await post(`/v1/runs/${original.id}/rerun`, { body: {} });
    expect(rerun.body).toMatchObject({ id: expect.any(String) });
    expect(rerun.status).toBe(202);
    const rerunId = rerun.body.id as string;
    expect(rerunId).not.toBe(original.id);
    expect(rerun.headers.get('location')).toBe(`/v1/runs/${rerunId}`);
    const copy = (await harness.fleet.store.getRun(rerunId))!;
    expect(copy).toMatchObject({ prompt: original.prompt, model: original.model, maxTurns: 30, tenant: 'default', rerunOf: original.id });
    expect((await waitForEnd(rerunId)).status).toBe('succeeded');
    const view = (await (await fetch(`${harness.apiUrl}/v1/runs/${rerunId}`, { headers: { authorization: `Bearer ${harness.apiKey}` } })).json()) as Record<string, unknown>;
    expect(view.rerunOf).toBe(original.id);
    // The original is not changed.
    expect((await harness.fleet.store.getRun(original.id))!.rerunOf).toBeNull();

    const edited = await post(`/v1/runs/${original.id}/rerun`, { body: { prompt: 'A one-page site for a florist', maxTurns: 20 } });
    expect(edited.status).toBe(202);
    expect(await harness.fleet.store.getRun(edited.body.id as string)).toMatchObject({ prompt: 'A one-page site for a florist', maxTurns: 20, rerunOf: original.id });
    await waitForEnd(edited.body.id as string);

    // Validated like POST /v1/runs.
    const invalid = await post(`/v1/runs/${original.id}/rerun`, { body: { maxTurns: 0 } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toMatchObject({ code: 'invalid_body' });
    const unknownField = await post(`/v1/runs/${original.id}/rerun`, { body: { colour: 'red' } });
    expect(unknownField.status).toBe(400);
    // Another tenant cannot rerun it.
    expect((await post(`/v1/runs/${original.id}/rerun`, { key: otherTenantKey, body: {} })).status).toBe(404);
  });

  it('creates one run per Idempotency-Key and original', async () => {
    const original = await runFailingAtTurn(0);
    const headers = { 'idempotency-key': `rerun-${original}` };
    const [first, second] = await Promise.all([post(`/v1/runs/${original}/rerun`, { headers, body: {} }), post(`/v1/runs/${original}/rerun`, { headers, body: {} })]);
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.body.id).toBe(first.body.id);
    expect([first.headers.get('idempotent-replayed'), second.headers.get('idempotent-replayed')].filter(Boolean)).toEqual(['true']);
    const conflict = await post(`/v1/runs/${original}/rerun`, { headers, body: { maxTurns: 5 } });
    expect(conflict.status).toBe(422);
    expect((await waitForEnd(first.body.id as string)).status).toBe('succeeded');
  });
});
