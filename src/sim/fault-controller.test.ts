import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseFaultHeader } from './fault-header.js';
import { startSimulator, type RunningSimulator } from './simulator-server.js';

let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => {
  simulator = await startSimulator();
  client = new Anthropic({ apiKey: 'sim', baseURL: simulator.url, maxRetries: 0 });
});
afterEach(() => {
  simulator.faults.clear();
});
afterAll(async () => {
  await simulator.close();
});

function call(headers: Record<string, string> = {}) {
  return client.messages.create({ model: 'claude-sim', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }, { headers });
}

async function failure(headers: Record<string, string> = {}): Promise<InstanceType<typeof Anthropic.APIError>> {
  const error = await call(headers).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Anthropic.APIError);
  return error as InstanceType<typeof Anthropic.APIError>;
}

const errorBody = (error: InstanceType<typeof Anthropic.APIError>) =>
  error.error as { type: string; error: { type: string; message: string; details?: { error_code?: string } }; request_id: string };

describe('scripted faults through the real SDK', () => {
  it('rate_limit: 429 rate_limit_error with retry-after, retry-after-ms or an HTTP-date', async () => {
    simulator.faults.add([{ kind: 'rate_limit', retryAfterSeconds: 3, retryAfterMs: 2500 }, { kind: 'rate_limit', retryAfterDate: 30 }]);
    const first = await failure();
    expect(first).toBeInstanceOf(Anthropic.RateLimitError);
    expect(first.status).toBe(429);
    expect(first.type).toBe('rate_limit_error');
    expect(first.headers?.get('retry-after')).toBe('3');
    expect(first.headers?.get('retry-after-ms')).toBe('2500');
    const second = await failure();
    const date = Date.parse(second.headers?.get('retry-after') ?? '');
    expect(date - Date.now()).toBeGreaterThan(20_000);
    expect((await call()).type).toBe('message');
  });

  it('spend_cap: 429 whose error carries details.error_code enforced_spend_limit_reached', async () => {
    simulator.faults.add({ kind: 'spend_cap' });
    const error = await failure();
    expect(error.status).toBe(429);
    expect(errorBody(error).error.details).toEqual({ error_code: 'enforced_spend_limit_reached' });
  });

  it.each([500, 502, 503, 504] as const)('server_error %i: api_error', async (status) => {
    simulator.faults.add({ kind: 'server_error', status });
    const error = await failure();
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect(error.status).toBe(status);
    expect(error.type).toBe('api_error');
  });

  it('overloaded: 529 overloaded_error', async () => {
    simulator.faults.add({ kind: 'overloaded' });
    const error = await failure();
    expect(error.status).toBe(529);
    expect(error.type).toBe('overloaded_error');
    expect(errorBody(error).request_id).toBe(error.requestID);
  });

  it('should_retry: the status plus x-should-retry', async () => {
    simulator.faults.add([{ kind: 'should_retry', status: 500, shouldRetry: false }, { kind: 'should_retry', status: 400, shouldRetry: true }]);
    const first = await failure();
    expect(first.status).toBe(500);
    expect(first.headers?.get('x-should-retry')).toBe('false');
    const second = await failure();
    expect(second.status).toBe(400);
    expect(second.headers?.get('x-should-retry')).toBe('true');
  });

  it('connection_reset: no answer at all, an APIConnectionError', async () => {
    simulator.faults.add({ kind: 'connection_reset' });
    const error = await failure();
    expect(error).toBeInstanceOf(Anthropic.APIConnectionError);
    expect(simulator.requests.at(-1)).toMatchObject({ status: 0, fault: 'connection_reset' });
  });

  it('slow: answers normally after the delay', async () => {
    simulator.faults.add({ kind: 'slow', delayMs: 150 });
    const started = Date.now();
    expect((await call()).type).toBe('message');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('bad_request and unauthorized: 400 and 401', async () => {
    simulator.faults.add([{ kind: 'bad_request', message: 'scripted' }, { kind: 'unauthorized' }]);
    const bad = await failure();
    expect(bad).toBeInstanceOf(Anthropic.BadRequestError);
    expect(errorBody(bad).error.message).toBe('scripted');
    const unauthorized = await failure();
    expect(unauthorized).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(unauthorized.type).toBe('authentication_error');
  });

  it('count: a fault hits that many requests, then requests succeed', async () => {
    simulator.faults.add({ kind: 'overloaded', count: 2 });
    expect((await failure()).status).toBe(529);
    expect((await failure()).status).toBe(529);
    expect((await call()).type).toBe('message');
  });

  it('runId: a fault only hits requests of that run', async () => {
    simulator.faults.add({ kind: 'overloaded', runId: 'run_a' });
    expect((await call({ 'x-buildfleet-run-id': 'run_b' })).type).toBe('message');
    expect((await failure({ 'x-buildfleet-run-id': 'run_a' })).status).toBe(529);
    expect(simulator.faults.pending()).toHaveLength(0);
  });

  it('latency: delays every matching request until cleared, without being consumed', async () => {
    simulator.faults.add({ kind: 'latency', delayMs: 60 });
    for (let index = 0; index < 2; index += 1) {
      const started = Date.now();
      await call();
      expect(Date.now() - started).toBeGreaterThanOrEqual(55);
    }
    expect(simulator.faults.pending()).toHaveLength(1);
    expect(simulator.faults.clear()).toBe(1);
  });

  it('rejects an invalid fault', () => {
    expect(() => simulator.faults.add({ kind: 'server_error', status: 418 } as never)).toThrow();
  });
});

describe('per-request faults from x-buildfleet-fault', () => {
  it('applies to every request without a run id', async () => {
    expect((await failure({ 'x-buildfleet-fault': 'overloaded' })).status).toBe(529);
    expect((await failure({ 'x-buildfleet-fault': 'overloaded' })).status).toBe(529);
  });

  it('hits a run `count` times, then the run goes on', async () => {
    const headers = { 'x-buildfleet-fault': 'rate_limit:2*2', 'x-buildfleet-run-id': 'run_header' };
    const first = await failure(headers);
    expect(first.status).toBe(429);
    expect(first.headers?.get('retry-after')).toBe('2');
    expect((await failure(headers)).status).toBe(429);
    expect((await call(headers)).type).toBe('message');
  });

  it('parses every kind and rejects nonsense with a 400', async () => {
    expect(parseFaultHeader({ value: 'server_error:503' })).toEqual({ ok: true, fault: { kind: 'server_error', status: 503 }, count: 1 });
    expect(parseFaultHeader({ value: 'should_retry:429:true' })).toEqual({ ok: true, fault: { kind: 'should_retry', status: 429, shouldRetry: true }, count: 1 });
    expect(parseFaultHeader({ value: 'slow:20' })).toMatchObject({ ok: true, fault: { kind: 'slow', delayMs: 20 } });
    for (const kind of ['spend_cap', 'connection_reset', 'bad_request', 'unauthorized', 'overloaded', 'latency:5']) {
      expect(parseFaultHeader({ value: kind }).ok, kind).toBe(true);
    }
    expect(parseFaultHeader({ value: 'meteor' }).ok).toBe(false);
    expect((await failure({ 'x-buildfleet-fault': 'server_error:418' })).status).toBe(400);
  });
});
