// The run engine's guarantees that only show through the whole fleet: tokens paid for a call the
// run no longer needed still count, and stored state that does not decode ends the run with a
// reason instead of a job retried until it gives up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRunId } from '../../src/engine/index.js';
import { cancelRun } from '../../src/fleet/run-commands.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

let harness: InProcessFleet;
beforeAll(async () => {
  harness = await startInProcessFleet({ label: 'engine', env: { BUILDFLEET_RETRY_BASE_MS: '20' } });
});
afterAll(async () => harness?.close());

async function poll<T>(read: () => Promise<T>, until: (value: T) => boolean, what: string): Promise<T> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const value = await read();
    if (until(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not happen`);
}

describe('the run engine', () => {
  it('counts the tokens of an answer that arrives after the run was cancelled', async () => {
    const runId = newRunId();
    harness.simulator.faults.add({ kind: 'slow', runId, delayMs: 1500, count: 1 });
    await harness.submit({ runId });
    await poll(() => harness.fleet.store.readEvents(runId), (events) => events.some((event) => event.event === 'turn-start'), 'the first call');
    const run = await harness.fleet.store.getRun(runId);
    expect(await cancelRun(harness.fleet, run!)).toBe(true);
    // The answer still arrives (the call was already made) and is paid for: its usage is kept,
    // and nothing else of it is committed.
    const ended = await poll(() => harness.fleet.store.getRun(runId), (value) => (value?.usage.output_tokens ?? 0) > 0, 'usage of the late answer');
    expect(ended?.status).toBe('cancelled');
    expect(ended?.usage.input_tokens).toBeGreaterThan(0);
    expect(await harness.fleet.store.getMessages(runId)).toHaveLength(1);
    const events = await harness.fleet.store.readEvents(runId);
    expect(events.filter((event) => event.event === 'run-end')).toHaveLength(1);
    expect(events.some((event) => event.event === 'model-call-end')).toBe(false);
  });

  it('ends a run whose stored record does not decode, naming the field', async () => {
    const waiting = await harness.waitForRun((await harness.submit({ options: { scenario: 'ask_user' } })).id);
    expect(waiting.status).toBe('waiting_for_input');
    // Deliberately what production never writes: a todo list that is not JSON.
    await harness.fleet.redis.hset(harness.fleet.store.keys.run(waiting.id), 'todos', '{not json');
    await harness.fleet.queues.own.enqueueTurn({ runId: waiting.id, turn: waiting.turn, trace: {} }, `${waiting.id}-corrupt-probe`);
    const fields = await poll(() => harness.fleet.redis.hgetall(harness.fleet.store.keys.run(waiting.id)), (value) => value.status === 'failed', 'the run to end');
    expect(JSON.parse(fields.error ?? '{}')).toMatchObject({ code: 'stored_run_invalid', message: expect.stringContaining('"todos"') });
  });
});
