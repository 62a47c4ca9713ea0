import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from './rate-limiter.js';
import { startSimulator, type RunningSimulator } from './simulator-server.js';

// Rate limits through the real SDK over HTTP (docs api/rate-limits). The clock is injected so
// replenishment is tested without waiting.
let now = Date.parse('2026-03-02T10:00:00Z');
let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => {
  simulator = await startSimulator({ clock: () => now });
  client = new Anthropic({ apiKey: 'sim-limits', baseURL: simulator.url, maxRetries: 0 });
});
afterAll(async () => {
  await simulator.close();
});
beforeEach(async () => {
  await fetch(`${simulator.url}/_sim/rate-limits`, { method: 'PUT', body: JSON.stringify(DEFAULT_RATE_LIMITS) });
  await fetch(`${simulator.url}/_sim/rate-limits`, { method: 'DELETE' });
  simulator.promptCache.clear();
});

const OFF = { 'x-buildfleet-text-calls': 'off' };
const request = { model: 'claude-sim', max_tokens: 100, messages: [{ role: 'user' as const, content: 'Build a site for Luna Bakery.' }] };
const RATE_LIMIT_HEADERS = ['requests', 'input-tokens', 'output-tokens', 'tokens'].flatMap((kind) =>
  ['limit', 'remaining', 'reset'].map((part) => `anthropic-ratelimit-${kind}-${part}`),
);

async function setLimits(limits: Record<string, number>): Promise<unknown> {
  const response = await fetch(`${simulator.url}/_sim/rate-limits`, { method: 'PUT', body: JSON.stringify(limits) });
  expect(response.status).toBe(200);
  return response.json();
}

async function rateLimited(): Promise<InstanceType<typeof Anthropic.RateLimitError>> {
  const error = await client.messages.create(request, { headers: OFF }).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Anthropic.RateLimitError);
  return error as InstanceType<typeof Anthropic.RateLimitError>;
}

describe('rate-limit headers', () => {
  it('every answer — JSON, streamed, or an error — carries anthropic-ratelimit-* headers, with RFC 3339 resets', async () => {
    const { response } = await client.messages.create(request, { headers: OFF }).withResponse();
    for (const name of RATE_LIMIT_HEADERS) expect(response.headers.get(name), name).not.toBeNull();
    expect(response.headers.get('anthropic-ratelimit-requests-limit')).toBe(String(DEFAULT_RATE_LIMITS.requestsPerMinute));
    expect(response.headers.get('anthropic-ratelimit-requests-remaining')).toBe(String(DEFAULT_RATE_LIMITS.requestsPerMinute - 1));
    expect(response.headers.get('anthropic-ratelimit-input-tokens-reset')).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);

    const streamed = await client.messages.create({ ...request, stream: true }, { headers: OFF }).withResponse();
    for await (const _event of streamed.data) {
      // drained: the stream is the same answer
    }
    expect(streamed.response.headers.get('content-type')).toContain('text/event-stream');
    for (const name of RATE_LIMIT_HEADERS) expect(streamed.response.headers.get(name), name).not.toBeNull();

    const refused = await client.messages.create({ ...request, model: 'claude-nope' }, { headers: OFF }).then(
      () => null,
      (thrown: unknown) => thrown as InstanceType<typeof Anthropic.APIError>,
    );
    expect(refused?.status).toBe(404);
    for (const name of RATE_LIMIT_HEADERS) expect(refused?.headers?.get(name), name).not.toBeNull();
  });
});

describe('token buckets (429 rate_limit_error with retry-after)', () => {
  it('an empty requests bucket answers 429 with an integer retry-after and the headers, and refills continuously', async () => {
    expect(await setLimits({ requestsPerMinute: 2 })).toEqual({ limits: { ...DEFAULT_RATE_LIMITS, requestsPerMinute: 2 } });
    await client.messages.create(request, { headers: OFF });
    await client.messages.create(request, { headers: OFF });
    const error = await rateLimited();
    expect(error.status).toBe(429);
    expect(error.type).toBe('rate_limit_error');
    expect(error.headers?.get('retry-after')).toBe('30');
    expect(error.headers?.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    expect((error.error as { error: { message: string } }).error.message).toContain("rate limit of 2 requests per minute (org: simulated, model: claude-sim)");

    now += 30_000; // half a minute refills one request of two
    expect((await client.messages.create(request, { headers: OFF })).type).toBe('message');
    await rateLimited();
  });

  it('counts uncached input and cache writes toward input tokens, but not cache reads', async () => {
    const system = [{ type: 'text' as const, text: 'You build small websites for bakeries. '.repeat(200), cache_control: { type: 'ephemeral' as const } }];
    const cached = { ...request, system };
    const first = await client.messages.create(cached, { headers: OFF });
    const written = first.usage.cache_creation_input_tokens ?? 0;
    expect(written).toBeGreaterThan(1000);
    // Room for the uncached tail of one request, far less than the cached prefix.
    await setLimits({ inputTokensPerMinute: 200 });
    await fetch(`${simulator.url}/_sim/rate-limits`, { method: 'DELETE' });
    const second = await client.messages.create(cached, { headers: OFF });
    expect(second.usage.cache_read_input_tokens).toBe(written);
    simulator.promptCache.clear();
    const error = await client.messages.create(cached, { headers: OFF }).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect(((error as InstanceType<typeof Anthropic.RateLimitError>).error as { error: { message: string } }).error.message).toContain('200 input tokens per minute');
  });

  it('reserves max_tokens of output at the start and gives back what the answer did not use', async () => {
    await setLimits({ outputTokensPerMinute: 1000 });
    const { data, response } = await client.messages.create({ ...request, max_tokens: 600 }, { headers: OFF }).withResponse();
    // The headers show the reservation; once settled, only the real output stays spent.
    expect(response.headers.get('anthropic-ratelimit-output-tokens-remaining')).toBe('400');
    const { response: after } = await client.messages.create({ ...request, max_tokens: 1 }, { headers: OFF }).withResponse();
    expect(Number(after.headers.get('anthropic-ratelimit-output-tokens-remaining'))).toBe(1000 - data.usage.output_tokens - 1);
    const tooMuch = await client.messages.create({ ...request, max_tokens: 1001 }, { headers: OFF }).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(tooMuch).toBeInstanceOf(Anthropic.RateLimitError);
  });

  it('refuses an invalid limit change', async () => {
    const response = await fetch(`${simulator.url}/_sim/rate-limits`, { method: 'PUT', body: JSON.stringify({ requestsPerMinute: 0 }) });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
  });
});
