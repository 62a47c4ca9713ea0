// A 429 with retry-after seen by one worker process holds every worker process: the simulator
// receives no request from any of three model workers until the retry-after has passed. A 529
// overload episode does the same with the fleet's growing backoff.
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/cli/api-client.js';
import { createKeySpace, RunEngine } from '../../src/engine/index.js';
import { useDevFleet } from '../support/dev-fleet.js';
import { connectTestRedis } from '../support/redis.js';

interface RequestSummary {
  endpoint: string;
  timestampMs: number;
  durationMs: number;
  status: number;
  headers: Record<string, string>;
}

const handle = useDevFleet({ label: 'ratelimit', modelWorkers: 3, toolWorkers: 1 });

async function simulatorRequests(): Promise<RequestSummary[]> {
  const response = await fetch(`${handle.fleet.simulatorUrl}/_sim/requests`);
  const body = (await response.json()) as { requests?: RequestSummary[] } | RequestSummary[];
  return Array.isArray(body) ? body : (body.requests ?? []);
}

describe('a 429 across the fleet', () => {
  it('pauses every model worker process until retry-after has passed', async () => {
    const client = new ApiClient(handle.fleet.apiUrl, handle.fleet.apiKey);
    await fetch(`${handle.fleet.simulatorUrl}/_sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'rate_limit', retryAfterSeconds: 2, count: 1 }),
    });
    const first = await client.request<{ id: string }>('POST', '/v1/runs', { prompt: 'Build the first site.' });
    let limited: RequestSummary | undefined;
    for (let attempt = 0; attempt < 100 && !limited; attempt += 1) {
      limited = (await simulatorRequests()).find((request) => request.status === 429);
      if (!limited) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(limited, 'the scripted 429 was served').toBeDefined();
    // Traffic from more runs, spread over all three worker processes, while the fleet is paused.
    const others = await Promise.all(
      Array.from({ length: 6 }, (_, index) => client.request<{ id: string }>('POST', '/v1/runs', { prompt: `Build site ${index}.` })),
    );
    const ids = [first.id, ...others.map((run) => run.id)];
    await expectEverySucceeds(client, ids);
    const limitedAnsweredAt = limited!.timestampMs + limited!.durationMs;
    // Messages calls only: the workers' token counts (count_tokens, token-calibration.ts) have a
    // rate limit of their own (build-with-claude/token-counting) and may go on during the pause.
    const after = (await simulatorRequests()).filter((request) => request.endpoint === 'messages' && request.timestampMs > limited!.timestampMs);
    expect(after.length).toBeGreaterThan(ids.length);
    const earliest = Math.min(...after.map((request) => request.timestampMs));
    expect(earliest - limitedAnsweredAt, 'ms between the 429 and the next model request').toBeGreaterThanOrEqual(2000);
  }, 90_000);
});

describe('a 529 overload episode across the fleet', () => {
  it('holds every model worker process behind the growing pause; every run succeeds on its first attempts', async () => {
    const client = new ApiClient(handle.fleet.apiUrl, handle.fleet.apiKey);
    const before = (await simulatorRequests()).length;
    await fetch(`${handle.fleet.simulatorUrl}/_sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'overload_episode', durationMs: 2500 }),
    });
    const runs = await Promise.all(
      Array.from({ length: 6 }, (_, index) => client.request<{ id: string }>('POST', '/v1/runs', { prompt: `Build overload site ${index}.` })),
    );
    await expectEverySucceeds(client, runs.map((run) => run.id));
    const requests = (await simulatorRequests()).slice(before);
    expect(requests.filter((request) => request.status === 529).length).toBeGreaterThan(0);
    const redis = connectTestRedis();
    try {
      const store = new RunEngine(redis, createKeySpace(handle.prefix));
      // Each pause as the worker that set it reported it, and the moment each call passed its
      // pause check, both on Redis's clock (model-overload-wait's pause_from_ms / pause_until_ms,
      // turn-start's pause_checked_at_ms): exact, whatever the load. The events' own `at` is the
      // workers' time of writing, which a loaded machine delays by more than any margin.
      const windows: Array<{ from: number; to: number }> = [];
      const decided: Array<{ run: string; step: number; at: number }> = [];
      for (const { id } of runs) {
        const events = await store.readEvents(id);
        for (const event of events) {
          if (event.event === 'model-overload-wait') {
            expect(typeof event.pause_from_ms).toBe('number');
            windows.push({ from: Number(event.pause_from_ms), to: Number(event.pause_until_ms) });
          } else if (event.event === 'turn-start') {
            expect(typeof event.pause_checked_at_ms).toBe('number');
            decided.push({ run: id, step: event.step, at: Number(event.pause_checked_at_ms) });
          }
        }
        expect(events.filter((event) => event.event === 'turn-start').every((event) => event.attempt === 1)).toBe(true);
      }
      expect(windows.length).toBeGreaterThan(0);
      // Both clocks are read to the millisecond: a check in the very millisecond the pause was set may
      // have run just before it, and one in its last millisecond just after it expired, so those two
      // milliseconds are not judged. Any check strictly between ran after the set and before the
      // expiry (Redis runs the scripts one at a time) and must have seen the pause.
      const calledDuringPause = decided.filter((call) => windows.some((window) => call.at > window.from && call.at < window.to - 1));
      expect(calledDuringPause).toEqual([]);
    } finally {
      redis.disconnect();
    }
  }, 90_000);
});

/** Polls each run until it succeeded; any other end, or a minute without one, fails the test. */
async function expectEverySucceeds(client: ApiClient, ids: readonly string[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (const id of ids) {
    for (;;) {
      const view = await client.request<{ status: string }>('GET', `/v1/runs/${id}`);
      if (view.status === 'succeeded') break;
      expect(['queued', 'running']).toContain(view.status);
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
