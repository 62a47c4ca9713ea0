import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from './simulator-server.js';

// Prompt caching through the real SDK over HTTP (docs build-with-claude/prompt-caching). The clock
// is injected so lifetimes are tested without waiting.
let now = Date.parse('2026-03-02T10:00:00Z');
let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => {
  simulator = await startSimulator({ clock: () => now });
  client = new Anthropic({ apiKey: 'sim-cache', baseURL: simulator.url, maxRetries: 0 });
});
afterAll(async () => {
  await simulator.close();
});
beforeEach(() => {
  simulator.promptCache.clear();
});

const OFF = { 'x-buildfleet-text-calls': 'off' };
const ephemeral = { type: 'ephemeral' } as const;
// claude-sim caches prefixes of at least 1,024 tokens (about 4,096 characters).
const longSystem = 'You build small websites for bakeries. '.repeat(200);
const tool = (name: string) => ({ name, description: `the ${name} tool`, input_schema: { type: 'object', properties: {} } });

function body(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'claude-sim',
    max_tokens: 300,
    tools: [tool('todo_write'), tool('write_file')],
    system: [{ type: 'text', text: longSystem, cache_control: ephemeral }],
    messages: [{ role: 'user', content: 'Build a site for Luna Bakery.' }],
    ...overrides,
  };
}

function send(request: Record<string, unknown>) {
  return client.messages.create(request as unknown as Anthropic.MessageCreateParamsNonStreaming, { headers: OFF });
}

async function rejection(request: Record<string, unknown>) {
  const error = await send(request).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Anthropic.BadRequestError);
  const badRequest = error as InstanceType<typeof Anthropic.BadRequestError>;
  expect(badRequest.type).toBe('invalid_request_error');
  return (badRequest.error as { error: { message: string } }).error.message;
}

const total = (usage: Anthropic.Usage) => usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);

describe('prompt caching (usage accounting)', () => {
  it('a second identical-prefix call reads what the first wrote, and the parts add up to the same prompt', async () => {
    const first = await send(body());
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThanOrEqual(1024);
    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(first.usage.cache_creation).toEqual({ ephemeral_5m_input_tokens: first.usage.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 });

    const second = await send(body());
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(second.usage.cache_creation_input_tokens).toBe(0);
    expect(second.usage.input_tokens).toBe(first.usage.input_tokens);
    expect(total(second.usage)).toBe(total(first.usage));
  });

  it('a changed tool list misses: tools come first in the prefix', async () => {
    await send(body());
    const changed = await send(body({ tools: [tool('todo_write'), tool('write_file'), tool('deploy')] }));
    expect(changed.usage.cache_read_input_tokens).toBe(0);
    expect(changed.usage.cache_creation_input_tokens).toBeGreaterThan(0);
  });

  it('caches per API key: another key does not read this key’s prefix', async () => {
    await send(body());
    const other = new Anthropic({ apiKey: 'sim-other', baseURL: simulator.url, maxRetries: 0 });
    const answer = await other.messages.create(body() as unknown as Anthropic.MessageCreateParamsNonStreaming, { headers: OFF });
    expect(answer.usage.cache_read_input_tokens).toBe(0);
  });

  it('finds an earlier entry by looking back from a breakpoint that moved forward (a growing conversation)', async () => {
    const turnOne = [{ role: 'user', content: [{ type: 'text', text: 'Build a site for Luna Bakery.', cache_control: ephemeral }] }];
    const first = await send(body({ system: [{ type: 'text', text: longSystem }], messages: turnOne }));
    const written = first.usage.cache_creation_input_tokens ?? 0;
    expect(written).toBeGreaterThan(0);
    const turnTwo = [
      { role: 'user', content: [{ type: 'text', text: 'Build a site for Luna Bakery.' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Which colours do you like?' }] },
      { role: 'user', content: [{ type: 'text', text: 'Warm ones, please.', cache_control: ephemeral }] },
    ];
    const second = await send(body({ system: [{ type: 'text', text: longSystem }], messages: turnTwo }));
    expect(second.usage.cache_read_input_tokens).toBe(written);
    expect(second.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(second.usage.input_tokens).toBe(0);
  });

  it('does not cache a prefix shorter than the model’s minimum, and does not refuse it', async () => {
    const short = body({ system: [{ type: 'text', text: 'You build websites.', cache_control: ephemeral }] });
    const first = await send(short);
    const second = await send(short);
    for (const answer of [first, second]) {
      expect(answer.usage.cache_creation_input_tokens).toBe(0);
      expect(answer.usage.cache_read_input_tokens).toBe(0);
    }
  });

  it('a 5-minute entry expires after 5 minutes unused, and each read refreshes it', async () => {
    await send(body());
    now += 4 * 60_000;
    expect((await send(body())).usage.cache_read_input_tokens).toBeGreaterThan(0);
    now += 4 * 60_000; // 8 minutes after the write, 4 after the refreshing read
    expect((await send(body())).usage.cache_read_input_tokens).toBeGreaterThan(0);
    now += 5 * 60_000 + 1;
    const expired = await send(body());
    expect(expired.usage.cache_read_input_tokens).toBe(0);
    expect(expired.usage.cache_creation_input_tokens).toBeGreaterThan(0);
  });

  it('a 1-hour entry outlives 5 minutes; mixed lifetimes split the write into 1h and 5m tokens', async () => {
    const mixed = body({
      system: [
        { type: 'text', text: longSystem, cache_control: { type: 'ephemeral', ttl: '1h' } },
        { type: 'text', text: longSystem.toUpperCase(), cache_control: { type: 'ephemeral', ttl: '5m' } },
      ],
    });
    const first = await send(mixed);
    const { ephemeral_1h_input_tokens: oneHour, ephemeral_5m_input_tokens: fiveMinutes } = first.usage.cache_creation ?? {};
    expect(oneHour).toBeGreaterThan(0);
    expect(fiveMinutes).toBeGreaterThan(0);
    expect((oneHour ?? 0) + (fiveMinutes ?? 0)).toBe(first.usage.cache_creation_input_tokens);
    now += 30 * 60_000;
    const later = await send(mixed);
    expect(later.usage.cache_read_input_tokens).toBe(oneHour);
    expect(later.usage.cache_creation).toEqual({ ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: fiveMinutes });
  });

  it('top-level cache_control puts the breakpoint on the last block (automatic caching)', async () => {
    const automatic = body({ system: [{ type: 'text', text: longSystem }], cache_control: ephemeral });
    await send(automatic);
    const second = await send(automatic);
    expect(second.usage.cache_read_input_tokens).toBe(total(second.usage) - second.usage.input_tokens);
    expect(second.usage.input_tokens).toBe(0);
  });
});

describe('prompt caching (400 invalid_request_error, like the real API)', () => {
  it('refuses a fifth breakpoint', async () => {
    const many = body({
      tools: ['a', 'b', 'c', 'd', 'e'].map((name) => ({ ...tool(name), cache_control: ephemeral })),
      system: longSystem,
    });
    expect(await rejection(many)).toBe('A maximum of 4 blocks with cache_control may be provided. Found 5.');
  });

  it('refuses a 1-hour breakpoint after a 5-minute one (tools → system → messages)', async () => {
    const misordered = body({
      tools: [{ ...tool('todo_write'), cache_control: { type: 'ephemeral', ttl: '5m' } }],
      system: [{ type: 'text', text: longSystem, cache_control: { type: 'ephemeral', ttl: '1h' } }],
    });
    expect(await rejection(misordered)).toBe(
      "system.0.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. " +
        'Note that blocks are processed in the following order: `tools`, `system`, `messages`.',
    );
  });

  it('refuses an unknown ttl and an unknown cache_control type', async () => {
    expect(await rejection(body({ system: [{ type: 'text', text: longSystem, cache_control: { type: 'ephemeral', ttl: '10m' } }] }))).toBe(
      "system.0.cache_control.ephemeral.ttl: Input should be '5m' or '1h'",
    );
    expect(await rejection(body({ system: [{ type: 'text', text: longSystem, cache_control: { type: 'persistent' } }] }))).toContain(
      "system.0.cache_control: Input tag \"persistent\" found using 'type' does not match any of the expected tags: 'ephemeral'",
    );
  });
});
