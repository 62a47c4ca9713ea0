// The shared event reader on the suite's Redis: one server (one XREAD BLOCK, woken by CLIENT
// UNBLOCK) or, in the cluster pass, a Redis Cluster (per-run polls, woken in process). Both must
// serve many runs at once, hand live events to every follower, and take a new subscription (or one
// that needs an earlier cursor) into the next read at once rather than after the wait in progress.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestRedis, deletePrefix, uniquePrefix } from '../../../test/support/redis.js';
import type { RedisClient } from '../../redis/redis-connection.js';
import { createKeySpace, RunEngine, type StoredEvent } from '../../engine/index.js';
import { SharedEventReader, type EventSubscription } from './shared-event-reader.js';

/** A turn-start's fields; `attempt` tells the runs' events apart. */
const TURN_START = { phase: 'planning', tools: 2, tool_choice: 'auto', tool_layout: 'tier_per_request', strict_tools: false, max_tokens: 1024, thinking: 'off', thinking_budget_tokens: null } as const;

// Far longer than the test's bounds: what arrives before it ends was woken, not waited out.
const LONG_WAIT_MS = 600_000;
const NEXT_TIMEOUT_MS = 20_000;
const FOLLOWED_RUNS = 60;

let redis: RedisClient;
let prefix: string;
let engine: RunEngine;
const readers: SharedEventReader[] = [];

beforeAll(() => {
  redis = connectTestRedis();
  prefix = uniquePrefix('sharedreader');
  engine = new RunEngine(redis, createKeySpace(prefix));
});
afterAll(async () => {
  for (const reader of readers) reader.close();
  await deletePrefix(redis, prefix);
  await redis.quit();
});

/** A reader whose wait (XREAD BLOCK, or on a cluster the pause between polls) lasts `waitMs`;
 * the default poll interval when not given. */
function newReader(waitMs?: number): SharedEventReader {
  const reader = new SharedEventReader({ engine, redis, connectionName: `buildfleet-test-events-${prefix}`, blockMs: waitMs ?? 5_000, ...(waitMs ? { pollIntervalMs: waitMs } : {}), idleCloseMs: 200 });
  readers.push(reader);
  return reader;
}

async function newRunId(): Promise<string> {
  const run = await engine.createRun({ tenant: 'tenant-test', prompt: 'Build a site', model: 'test-model', maxTurns: 10, maxTokens: 1024, options: {} });
  return run.id;
}

/** Collects a subscription's events until `enough` says so; [] if a wait ends with nothing. */
async function nextEvents(subscription: EventSubscription, enough: (events: StoredEvent[]) => boolean): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  const { signal } = new AbortController();
  while (!enough(events)) {
    const batch = await subscription.next({ timeoutMs: NEXT_TIMEOUT_MS, signal });
    if (batch.length === 0) return events;
    events.push(...batch);
  }
  return events;
}

describe('SharedEventReader', () => {
  it('serves many runs at once and hands every follower its live events', async () => {
    const reader = newReader();
    const runIds = await Promise.all(Array.from({ length: FOLLOWED_RUNS }, () => newRunId()));
    const subscriptions = runIds.map((runId) => reader.subscribe({ runId, afterId: '-' }));
    const backlogs = await Promise.all(subscriptions.map((subscription) => nextEvents(subscription, (events) => events.length >= 1)));
    expect(backlogs.map((events) => events.map((event) => `${event.run_id}:${event.event}`))).toEqual(runIds.map((runId) => [`${runId}:run-create`]));

    await Promise.all(runIds.map((runId, index) => engine.appendEvent({ run_id: runId, step: 1, event: 'turn-start', ...TURN_START, attempt: index })));
    const live = await Promise.all(subscriptions.map((subscription) => nextEvents(subscription, (events) => events.length >= 1)));
    expect(live.map((events) => events.map((event) => [event.event, event.event === 'turn-start' ? event.attempt : undefined]))).toEqual(runIds.map((_, index) => [['turn-start', index]]));
    for (const subscription of subscriptions) subscription.close();
    expect(reader.subscriptionCount).toBe(0);
  });

  it('takes a new subscription, or one that needs an earlier cursor, into the next read without waiting out the current wait', async () => {
    // The wait in progress (XREAD BLOCK, or the pause between polls) lasts LONG_WAIT_MS: events
    // that arrive within NEXT_TIMEOUT_MS were read because the subscription cut it short.
    const reader = newReader(LONG_WAIT_MS);
    const firstRunId = await newRunId();
    const first = reader.subscribe({ runId: firstRunId, afterId: '-' });
    const [created] = await nextEvents(first, (events) => events.length >= 1);
    expect(created?.event).toBe('run-create');
    // Let the reader settle into its wait, with the first run at its run-create event (were it
    // still reading, the late subscription would take the other path: a read again at once).
    await new Promise((resolve) => setTimeout(resolve, 200));

    const lateRunId = await newRunId();
    const late = reader.subscribe({ runId: lateRunId, afterId: '-' });
    expect((await nextEvents(late, (events) => events.length >= 1)).map((event) => `${event.run_id}:${event.event}`)).toEqual([`${lateRunId}:run-create`]);

    // A second follower of the first run from the start: its cursor is before the one in the wait.
    const rewound = reader.subscribe({ runId: firstRunId, afterId: '-' });
    expect((await nextEvents(rewound, (events) => events.length >= 1)).map((event) => event.id)).toEqual([created!.id]);
    for (const subscription of [first, late, rewound]) subscription.close();
  });
});
