// Event streams share a bounded number of Redis connections per API process, with a per-tenant
// cap: over a real listening server on loopback and the suite's Redis, 200 streams of 200 runs
// hold at most BUILDFLEET_SSE_REDIS_CONNECTIONS blocked connections (counted in CLIENT LIST) and
// each still gets its live events; a stream that joins while the shared XREAD is blocked is not
// left waiting for the block to end; a tenant past its cap is answered 429 with retry-after.
//
// In the cluster pass (BUILDFLEET_TEST_REDIS_CLUSTER=1) the API runs on the cluster, where the
// readers poll each run through the cluster client instead: the 200 streams must still all get
// their live events, but there is no blocked connection to count (CLIENT LIST would see one node
// anyway) and no CLIENT UNBLOCK; src/api/events/shared-event-reader.test.ts shows there that a new
// subscription cuts the pause between polls short.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readServerSentEvents } from '../../src/cli/follow-run.js';
import { EVENTS_CONNECTION_NAME } from '../../src/api/events/follow-run-events.js';
import { createApiTestHarness, type ApiTestHarness } from '../../src/api/testing/api-test-harness.js';
import { testRedisEnv } from '../support/redis.js';

/** A turn-start's fields; `attempt` tells the runs' events apart. */
const TURN_START = { phase: 'planning', tools: 2, tool_choice: 'auto', tool_layout: 'tier_per_request', strict_tools: false, max_tokens: 1024, thinking: 'off', thinking_budget_tokens: null } as const;

const onCluster = Boolean(process.env.BUILDFLEET_REDIS_CLUSTER_NODES);

type Frame = { id?: string; event: string; data: string };

async function connectionsNamed(harness: ApiTestHarness): Promise<number> {
  const list = (await harness.fleet.redis.client('LIST')) as string;
  const name = `${EVENTS_CONNECTION_NAME}-${harness.prefix}`;
  return list.split('\n').filter((line) => line.includes(`name=${name} `)).length;
}

async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** An open event stream whose frames are collected as they arrive. */
interface OpenStream {
  status: number;
  frames: Frame[];
  close(): void;
  done: Promise<void>;
}

async function openStream(url: string, authorization: string): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { authorization, accept: 'text/event-stream' }, signal: controller.signal });
  const frames: Frame[] = [];
  const done = (async () => {
    if (response.status !== 200 || !response.body) {
      await response.body?.cancel();
      return;
    }
    try {
      for await (const frame of readServerSentEvents(response.body)) frames.push(frame);
    } catch {
      // aborted by close()
    }
  })();
  return { status: response.status, frames, close: () => controller.abort(), done };
}

/** Opens a stream once the tenant has a free slot (a closed stream's slot comes back when the
 * server has seen its client go). */
async function openWhenAllowed(url: string, authorization: string): Promise<OpenStream> {
  const opened: { stream?: OpenStream } = {};
  await waitFor(async () => {
    const attempt = await openStream(url, authorization);
    if (attempt.status === 200) opened.stream = attempt;
    else await attempt.done;
    return opened.stream !== undefined;
  });
  return opened.stream!;
}

const READER_BLOCK_MS = 60_000;

const eventsOf = (stream: OpenStream) => stream.frames.filter((frame) => frame.event === 'message').map((frame) => JSON.parse(frame.data) as { event: string });

describe('200 event streams on one API process', () => {
  let harness: ApiTestHarness;
  let baseUrl: string;
  beforeAll(async () => {
    harness = await createApiTestHarness({
      label: 'sseshared',
      environment: { ...testRedisEnv(), BUILDFLEET_SSE_REDIS_CONNECTIONS: '2', BUILDFLEET_SSE_STREAMS_PER_TENANT: '0' },
      server: { eventReaderIdleMs: 200 },
    });
    baseUrl = await harness.listen();
  });
  afterAll(async () => harness?.close());

  it('hold at most two blocked Redis connections, and every stream gets its live events', async () => {
    if (!onCluster) expect(await connectionsNamed(harness)).toBe(0);
    const runs = await Promise.all(Array.from({ length: 200 }, () => harness.newRun({ status: 'running' })));
    const streams = await Promise.all(runs.map((run) => openStream(`${baseUrl}/v1/runs/${run.id}/events`, harness.auth.authorization)));
    expect(streams.every((stream) => stream.status === 200)).toBe(true);
    // Every stream has replayed its backlog (run-create) and subscribed.
    await waitFor(() => streams.every((stream) => eventsOf(stream).length >= 1));
    if (!onCluster) {
      await waitFor(async () => (await connectionsNamed(harness)) > 0);
      expect(await connectionsNamed(harness)).toBeLessThanOrEqual(2);
    }

    // Live: one event per run, written while every stream waits on the shared readers.
    await Promise.all(runs.map((run, index) => harness.fleet.store.appendEvent({ run_id: run.id, step: 1, event: 'turn-start', ...TURN_START, attempt: index })));
    await waitFor(() => streams.every((stream) => eventsOf(stream).some((event) => event.event === 'turn-start')));
    if (!onCluster) expect(await connectionsNamed(harness)).toBeLessThanOrEqual(2);
    for (const [index, stream] of streams.entries()) {
      expect(eventsOf(stream).map((event) => event.event)).toEqual(['run-create', 'turn-start']);
      expect((eventsOf(stream)[1] as { attempt?: number }).attempt).toBe(index);
    }

    // Runs that end end their streams; the readers then give their connections back.
    await Promise.all(runs.map((run) => harness.fleet.store.endRun(run.id, 1, 'succeeded', { result: 'Built.' })));
    await Promise.all(streams.map((stream) => stream.done));
    for (const stream of streams) expect(stream.frames.at(-1)).toMatchObject({ event: 'end', data: JSON.stringify({ status: 'succeeded' }) });
    if (!onCluster) await waitFor(async () => (await connectionsNamed(harness)) === 0);
  });
});

describe('one shared reader, and the per-tenant cap on open event streams', () => {
  let harness: ApiTestHarness;
  let baseUrl: string;
  beforeAll(async () => {
    // One shared reader, so a second stream always joins an XREAD already blocked.
    harness = await createApiTestHarness({
      label: 'ssecap',
      environment: { ...testRedisEnv(), BUILDFLEET_SSE_STREAMS_PER_TENANT: '2', BUILDFLEET_SSE_REDIS_CONNECTIONS: '1' },
      // A block far longer than any load could delay the wake-up: an event that arrives before
      // it ends was delivered by the CLIENT UNBLOCK, not by the block running out.
      server: { eventReaderIdleMs: 200, eventReaderBlockMs: READER_BLOCK_MS },
    });
    baseUrl = await harness.listen();
  });
  afterAll(async () => harness?.close());

  it('answers 429 too_many_event_streams past the cap, counts per tenant, and frees a slot when a stream closes', async () => {
    const run = await harness.newRun({ status: 'running' });
    const url = `${baseUrl}/v1/runs/${run.id}/events`;
    const first = await openStream(url, harness.auth.authorization);
    const second = await openStream(url, harness.auth.authorization);
    expect([first.status, second.status]).toEqual([200, 200]);

    const refused = await fetch(url, { headers: { ...harness.auth, accept: 'text/event-stream' } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('too_many_event_streams');
    // The JSON form holds no stream: not counted.
    const json = await fetch(url, { headers: { ...harness.auth, accept: 'application/json' } });
    expect(json.status).toBe(200);

    // Another tenant has slots of its own.
    const otherKey = await harness.createKey({ tenant: 'other', scopes: ['runs:read'] });
    const otherRun = await harness.fleet.store.createRun({ tenant: 'other', prompt: 'Another tenant’s site', model: 'claude-sonnet-4-5', maxTurns: 10, maxTokens: 1024, options: {} });
    const others = await openStream(`${baseUrl}/v1/runs/${otherRun.id}/events`, `Bearer ${otherKey}`);
    expect(others.status).toBe(200);

    // A closed stream gives its slot back (once the server has seen the client go).
    first.close();
    await first.done;
    const again = await openWhenAllowed(url, harness.auth.authorization);
    for (const stream of [second, others, again]) stream.close();
    await Promise.all([second.done, others.done, again.done]);
  });

  // One server only: it counts the blocked connection in CLIENT LIST and relies on CLIENT UNBLOCK;
  // a cluster has neither (its wake-up is tested in src/api/events/shared-event-reader.test.ts).
  it.skipIf(onCluster)('a stream that joins while the shared read is blocked gets its events without waiting out the block', async () => {
    const first = await harness.newRun({ status: 'running' });
    const early = await openWhenAllowed(`${baseUrl}/v1/runs/${first.id}/events`, harness.auth.authorization);
    await waitFor(async () => eventsOf(early).length >= 1 && (await connectionsNamed(harness)) > 0);
    // Let the shared XREAD block.
    await new Promise((resolve) => setTimeout(resolve, 200));

    const second = await harness.newRun({ status: 'running' });
    const late = await openWhenAllowed(`${baseUrl}/v1/runs/${second.id}/events`, harness.auth.authorization);
    await waitFor(() => eventsOf(late).length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const written = Date.now();
    await harness.fleet.store.appendEvent({ run_id: second.id, step: 1, event: 'turn-start', ...TURN_START, attempt: 1 });
    await waitFor(() => eventsOf(late).some((event) => event.event === 'turn-start'), READER_BLOCK_MS);
    // Included at once (CLIENT UNBLOCK), not after the block the reader was in when it joined.
    expect(Date.now() - written).toBeLessThan(READER_BLOCK_MS / 2);
    early.close();
    late.close();
    await Promise.all([early.done, late.done]);
  });
});
