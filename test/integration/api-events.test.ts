// GET /v1/runs/:id/events over a real listening server: replay, live follow, the end event,
// resuming with Last-Event-ID, the JSON form, heartbeats, and that a client going away or the
// server closing leaves no stream, timer or Redis connection behind (the shared readers close an
// idle connection after `eventReaderIdleMs`, shortened here).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readServerSentEvents } from '../../src/cli/follow-run.js';
import { EVENTS_CONNECTION_NAME } from '../../src/api/events/follow-run-events.js';
import type { RunEvent, RunEventName } from '../../src/domain/run-events.js';
import { createApiTestHarness, type ApiTestHarness } from '../../src/api/testing/api-test-harness.js';
import { testRedisEnv } from '../support/redis.js';

// In the cluster pass the API runs on the cluster: its readers poll through the cluster client and
// hold no connection of their own, so the CLIENT LIST checks below are for one server only.
const onCluster = Boolean(process.env.BUILDFLEET_REDIS_CLUSTER_NODES);

let harness: ApiTestHarness;
let baseUrl: string;

beforeAll(async () => {
  harness = await createApiTestHarness({ label: 'apievents', environment: testRedisEnv(), server: { heartbeatMs: 150, eventReaderIdleMs: 100 } });
  baseUrl = await harness.listen();
});

afterAll(async () => {
  await harness.close();
});

type Frame = { id?: string; event: string; data: string };

/** Collects frames until `until` says stop or the stream ends. */
async function collect(response: Response, until: (frames: Frame[]) => boolean = () => false): Promise<Frame[]> {
  const frames: Frame[] = [];
  if (!response.body) throw new Error('no body');
  for await (const frame of readServerSentEvents(response.body)) {
    frames.push(frame);
    if (until(frames)) break;
  }
  return frames;
}

async function followerConnections(): Promise<number> {
  const list = (await harness.fleet.redis.client('LIST')) as string;
  const name = `${EVENTS_CONNECTION_NAME}-${harness.prefix}`;
  return list.split('\n').filter((line) => line.includes(`name=${name} `)).length;
}

/** One server: waits until `count` blocked follower connections are open (none on a cluster). */
async function waitForFollowerConnections(count: number): Promise<void> {
  if (!onCluster) await waitFor(async () => (await followerConnections()) === count);
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** fetch with the harness's API key. */
function authed(url: string, init: RequestInit = {}, auth = harness.auth): Promise<Response> {
  return fetch(url, { ...init, headers: { ...auth, ...(init.headers as Record<string, string> | undefined) } });
}

// The stream's transport is under test, not the events: each is written with only the fields a
// test looks at (the decoder checks the name and, for a call's events, tool_use_id), hence the cast.
const append = (runId: string, event: RunEventName, extra: Record<string, unknown> = {}) =>
  harness.fleet.store.appendEvent({ run_id: runId, step: 1, event, ...extra } as RunEvent);

describe('Server-Sent Events', () => {
  it('replays from the start, follows live, and ends with event: end once the run is terminal', async () => {
    const created = await authed(`${baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Stream me' }),
    });
    const { id } = (await created.json()) as { id: string };
    const replayedId = await append(id, 'turn-start');

    const response = await authed(`${baseUrl}/v1/runs/${id}/events`, { headers: { accept: 'text/event-stream' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(response.headers.get('cache-control')).toContain('no-cache');

    const framesPromise = collect(response);
    // Live events, written while the client is connected and blocked in XREAD.
    await waitForFollowerConnections(1);
    const liveId = await append(id, 'tool-call-end', { tool: 'write_file', tool_use_id: 'toolu_1', ok: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The engine's end appends the run-end event in the same step as the terminal status.
    await harness.fleet.store.endRun(id, 0, 'succeeded', { result: 'Built it.' });
    const endId = (await harness.fleet.store.readEvents(id)).at(-1)?.id;

    const frames = await framesPromise;
    const dataFrames = frames.filter((frame) => frame.event === 'message');
    const events = dataFrames.map((frame) => JSON.parse(frame.data) as { id: string; event: string; run_id: string });
    expect(events.map((event) => event.event)).toEqual(['run-create', 'turn-start', 'tool-call-end', 'run-end']);
    expect(dataFrames.map((frame) => frame.id)).toEqual(events.map((event) => event.id));
    expect(events.slice(1).map((event) => event.id)).toEqual([replayedId, liveId, endId]);
    expect(events.every((event) => event.run_id === id)).toBe(true);
    const last = frames.at(-1);
    expect(last?.event).toBe('end');
    expect(JSON.parse(last?.data ?? '{}')).toEqual({ status: 'succeeded' });
    await waitForFollowerConnections(0);
  });

  it('resumes after Last-Event-ID (and ?after=), and ends at once for a finished run', async () => {
    const run = await harness.newRun({ status: 'running' });
    const first = await append(run.id, 'turn-start');
    const second = await append(run.id, 'model-call-end');
    await harness.fleet.store.endRun(run.id, 0, 'failed', { error: { code: 'model_error', message: 'x' } });
    const third = (await harness.fleet.store.readEvents(run.id)).at(-1)?.id;

    const resumed = await collect(await authed(`${baseUrl}/v1/runs/${run.id}/events`, { headers: { 'last-event-id': first } }));
    expect(resumed.filter((frame) => frame.event === 'message').map((frame) => frame.id)).toEqual([second, third]);
    expect(resumed.at(-1)).toMatchObject({ event: 'end' });

    const viaQuery = await collect(await authed(`${baseUrl}/v1/runs/${run.id}/events?after=${second}`));
    expect(viaQuery.filter((frame) => frame.event === 'message').map((frame) => frame.id)).toEqual([third]);

    // The header wins over the query, as a reconnecting EventSource repeats the original URL.
    const both = await collect(await authed(`${baseUrl}/v1/runs/${run.id}/events?after=${first}`, { headers: { 'last-event-id': second } }));
    expect(both.filter((frame) => frame.event === 'message').map((frame) => frame.id)).toEqual([third]);
    if (!onCluster) expect(await followerConnections()).toBe(0);
  });

  it('ends a run that finished without a run-end event after the grace period', async () => {
    const run = await harness.newRun({ status: 'running' });
    await append(run.id, 'turn-start');
    const response = await authed(`${baseUrl}/v1/runs/${run.id}/events`);
    const framesPromise = collect(response);
    await waitForFollowerConnections(1);
    await harness.fleet.store.endRun(run.id, 0, 'refused', {});
    // Wakes the blocked follower so it re-reads the status.
    await append(run.id, 'model-progress');
    const started = Date.now();
    const frames = await framesPromise;
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(frames.at(-1)).toMatchObject({ event: 'end', data: JSON.stringify({ status: 'refused' }) });
  });

  it('sends heartbeat comments while idle', async () => {
    const run = await harness.newRun({ status: 'running' });
    const controller = new AbortController();
    const response = await authed(`${baseUrl}/v1/runs/${run.id}/events`, { signal: controller.signal });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const deadline = Date.now() + 3_000;
    while (!text.includes(': heartbeat') && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    controller.abort();
    expect(text).toContain('retry: ');
    expect(text).toContain(': heartbeat\n\n');
    await waitForFollowerConnections(0);
  });

  it('cleans up when the client disconnects mid-stream: no follower connection left', async () => {
    const run = await harness.newRun({ status: 'running' });
    await append(run.id, 'turn-start');
    const controllers = Array.from({ length: 3 }, () => new AbortController());
    const responses = await Promise.all(
      controllers.map((controller) => authed(`${baseUrl}/v1/runs/${run.id}/events`, { signal: controller.signal })),
    );
    expect(responses.every((response) => response.status === 200)).toBe(true);
    // Three clients of one run share one blocked connection.
    await waitForFollowerConnections(1);
    for (const controller of controllers) controller.abort();
    await waitForFollowerConnections(0);
    // The run is untouched and the API still answers.
    const view = await authed(`${baseUrl}/v1/runs/${run.id}`);
    expect(view.status).toBe(200);
  });

  it('answers 404 before streaming for an unknown run, and 400 for a malformed cursor', async () => {
    const missing = await authed(`${baseUrl}/v1/runs/run_unknownrun123/events`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: 'run_not_found', message: 'No such run.' } });

    const run = await harness.newRun();
    const badQuery = await authed(`${baseUrl}/v1/runs/${run.id}/events?after=yesterday`);
    expect(badQuery.status).toBe(400);
    expect(((await badQuery.json()) as { error: { code: string; message: string } }).error).toEqual({
      code: 'invalid_query',
      message: expect.stringContaining('query.after'),
    });
    const badHeader = await authed(`${baseUrl}/v1/runs/${run.id}/events`, { headers: { 'last-event-id': 'abc' } });
    expect(badHeader.status).toBe(400);
    expect(((await badHeader.json()) as { error: { code: string } }).error.code).toBe('invalid_header');
    // 20 digits fit the pattern but not Redis's unsigned 64-bit ids (a 500 the fuzzer found).
    const overflow = await authed(`${baseUrl}/v1/runs/${run.id}/events`, { headers: { accept: 'application/json', 'last-event-id': '99999999999999999999-1' } });
    expect(overflow.status).toBe(400);
    expect(((await overflow.json()) as { error: { code: string } }).error.code).toBe('invalid_header');
    const nearMax = await authed(`${baseUrl}/v1/runs/${run.id}/events?after=18446744073709551615-18446744073709551614`, { headers: { accept: 'application/json' } });
    expect(nearMax.status).toBe(200);
    const max = await authed(`${baseUrl}/v1/runs/${run.id}/events?after=18446744073709551615-18446744073709551615`, { headers: { accept: 'application/json' } });
    expect(max.status).toBe(400);
  });
});

describe('HEAD', () => {
  it('answers the head of an event stream without following the run', async () => {
    const run = await harness.newRun({ status: 'running' });
    const started = Date.now();
    const response = await authed(`${baseUrl}/v1/runs/${run.id}/events`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('JSON events', () => {
  it('answers a JSON array of the events so far for Accept: application/json', async () => {
    const run = await harness.newRun({ status: 'running' });
    const first = await append(run.id, 'turn-start');
    const second = await append(run.id, 'tool-call-dispatch', { tool: 'write_file', tool_use_id: 'toolu_1' });
    const response = await harness.app.inject({
      url: `/v1/runs/${run.id}/events`,
      headers: { ...harness.auth, accept: 'application/json' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('application/json');
    // The run's own run-create event comes first (the engine writes it with the run).
    const events = (response.json() as Array<Record<string, unknown>>).filter((event) => event.event !== 'run-create');
    expect(events.map((event) => event.id)).toEqual([first, second]);
    expect(events[1]).toMatchObject({ run_id: run.id, step: 1, event: 'tool-call-dispatch', tool: 'write_file', at: expect.any(String) });

    const after = await harness.app.inject({ url: `/v1/runs/${run.id}/events?after=${first}`, headers: { ...harness.auth, accept: 'application/json' } });
    expect((after.json() as Array<{ id: string }>).map((event) => event.id)).toEqual([second]);
  });

  it('pages through more than one XRANGE page', async () => {
    const run = await harness.newRun();
    const pipeline = harness.fleet.redis.pipeline();
    for (let index = 0; index < 1_203; index += 1) {
      pipeline.xadd(harness.fleet.store.keys.events(run.id), '*', 'data', JSON.stringify({ run_id: run.id, step: index, event: 'turn-start', at: 'now' }));
    }
    await pipeline.exec();
    const response = await harness.app.inject({ url: `/v1/runs/${run.id}/events`, headers: { ...harness.auth, accept: 'application/json' } });
    const events = response.json() as Array<{ step: number }>;
    expect(events).toHaveLength(1_204); // run-create + 1,203
    expect(events.at(-1)?.step).toBe(1_202);
  });
});

describe('server close', () => {
  it('ends open streams so close() does not wait for runs to finish', async () => {
    const local = await createApiTestHarness({ label: 'apievclose', environment: testRedisEnv() });
    const url = await local.listen();
    const run = await local.newRun({ status: 'running' });
    const response = await authed(`${url}/v1/runs/${run.id}/events`, {}, local.auth);
    const framesPromise = collect(response).catch(() => []);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await local.close();
    expect(Date.now() - started).toBeLessThan(3_000);
    const frames = await framesPromise;
    expect(frames.some((frame) => frame.event === 'end')).toBe(false);
  });
});
