import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

// A time-based 529 episode and the spend-limit answers, through the real SDK over HTTP. The clock
// is injected so the episode's window passes without waiting.
let now = Date.parse('2026-03-02T10:00:00Z');
let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient({ clock: () => now })));
afterAll(() => simulator.close());

const OFF = { 'x-buildfleet-text-calls': 'off' };
const request = { model: 'claude-sim', max_tokens: 100, messages: [{ role: 'user' as const, content: 'Build a site for Luna Bakery.' }] };

async function failure(headers: Record<string, string> = {}) {
  const error = await client.messages.create(request, { headers: { ...OFF, ...headers } }).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Anthropic.APIError);
  const apiError = error as InstanceType<typeof Anthropic.APIError>;
  return { status: apiError.status, type: apiError.type, message: (apiError.error as { error: { message: string } }).error.message, headers: apiError.headers };
}

async function queueFault(fault: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${simulator.url}/_sim/faults`, { method: 'POST', body: JSON.stringify(fault) });
  expect(response.status).toBe(200);
}

describe('overload episodes', () => {
  it('answers every request 529 overloaded_error for the window, then answers normally, and records when each came', async () => {
    const before = simulator.requests.length;
    await queueFault({ kind: 'overload_episode', durationMs: 60_000 });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const answer = await failure({ 'x-buildfleet-run-id': `run_${attempt}` });
      expect(answer).toMatchObject({ status: 529, type: 'overloaded_error' });
      expect(answer.headers?.get('anthropic-ratelimit-requests-limit')).not.toBeNull();
      now += 15_000;
    }
    now += 15_001; // the window has closed
    expect((await client.messages.create(request, { headers: OFF })).type).toBe('message');
    const recorded = simulator.requests.slice(before);
    expect(recorded.map((entry) => [entry.status, entry.fault])).toEqual([
      [529, 'overload_episode'],
      [529, 'overload_episode'],
      [529, 'overload_episode'],
      [200, null],
    ]);
    expect(recorded.every((entry) => typeof entry.timestampMs === 'number')).toBe(true);
    expect(((await (await fetch(`${simulator.url}/_sim/faults`)).json()) as { pending: unknown[] }).pending).toEqual([]);
  });
});

describe('spend limits', () => {
  it('a user-set spend limit answers 400 invalid_request_error "You have reached your specified API usage limits…"', async () => {
    await queueFault({ kind: 'spend_limit' });
    expect(await failure()).toMatchObject({
      status: 400,
      type: 'invalid_request_error',
      message: 'You have reached your specified API usage limits. You will regain access on 2026-04-01 at 00:00 UTC.',
    });
    await queueFault({ kind: 'spend_limit', workspace: true, resumesAt: '2026-03-05T00:00:00Z' });
    expect((await failure()).message).toBe('You have reached your specified workspace API usage limits. You will regain access on 2026-03-05 at 00:00 UTC.');
    expect((await failure({ 'x-buildfleet-fault': 'spend_limit:workspace' })).message).toMatch(/^You have reached your specified workspace API usage limits\./);
  });

  it('the tier’s spend cap stays a 429 with error_code enforced_spend_limit_reached', async () => {
    await queueFault({ kind: 'spend_cap' });
    const error = await client.messages.create(request, { headers: OFF }).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const body = (error as InstanceType<typeof Anthropic.RateLimitError>).error as { error: { details?: { error_code?: string } } };
    expect(body.error.details?.error_code).toBe('enforced_spend_limit_reached');
  });
});
