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

  it('the minimum is the model’s own, in its own tokens: 512 on Sonnet 5.5 caches what 1,024 on Sonnet 4.6 does not', async () => {
    // 2,400 characters: 780 tokens on Sonnet 5.5's newer tokenizer, 600 on Sonnet 4.6's (count-model-tokens.ts),
    // between the two minimums either way (model-catalog.ts minimumCacheableTokens, docs "Cache limitations").
    const system = [{ type: 'text', text: 'Bakery sites need a menu. '.repeat(100).slice(0, 2400), cache_control: ephemeral }];
    const request = (model: string) => body({ model, tools: undefined, system });
    const newer = [await send(request('claude-sonnet-5-5')), await send(request('claude-sonnet-5-5'))];
    expect(newer[0]?.usage.cache_creation_input_tokens).toBeGreaterThan(780);
    expect(newer[0]?.usage.cache_creation_input_tokens).toBeLessThan(1024);
    expect(newer[1]?.usage.cache_read_input_tokens).toBe(newer[0]?.usage.cache_creation_input_tokens);
    for (const answer of [await send(request('claude-sonnet-4-6')), await send(request('claude-sonnet-4-6'))]) {
      expect(answer.usage.cache_creation_input_tokens).toBe(0);
      expect(answer.usage.cache_read_input_tokens).toBe(0);
      expect(total(answer.usage)).toBeGreaterThan(600);
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

describe('prompt caching: markers inside tool results and automatic placement', () => {
  // A turn whose tool_use the next request answers; tool choice forced so the answer is a call.
  async function toolTurn(system: unknown) {
    const first = await send(body({ system, tool_choice: { type: 'tool', name: 'todo_write' } }));
    const toolUse = first.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    expect(toolUse).toBeDefined();
    return { assistant: { role: 'assistant', content: first.content }, toolUseId: toolUse!.id };
  }

  it('counts a cache_control inside a tool_result’s content toward the 4 and checks its ttl', async () => {
    const { assistant, toolUseId } = await toolTurn(longSystem);
    const result = (innerCacheControl: unknown) => ({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: toolUseId, content: [{ type: 'text', text: 'done', cache_control: innerCacheControl }] }],
    });
    const marked = ['a', 'b', 'c', 'd'].map((name) => ({ ...tool(name), cache_control: ephemeral }));
    const messages = (inner: unknown) => [{ role: 'user', content: 'Build a site for Luna Bakery.' }, assistant, result(inner)];
    expect(await rejection(body({ tools: [tool('todo_write'), ...marked], system: longSystem, messages: messages(ephemeral) }))).toBe(
      'A maximum of 4 blocks with cache_control may be provided. Found 5.',
    );
    expect(await rejection(body({ system: longSystem, messages: messages({ type: 'ephemeral', ttl: '2h' }) }))).toBe(
      "messages.2.content.0.content.0.cache_control.ephemeral.ttl: Input should be '5m' or '1h'",
    );
    expect(
      await rejection(body({ system: [{ type: 'text', text: longSystem, cache_control: ephemeral }], messages: messages({ type: 'ephemeral', ttl: '1h' }) })),
    ).toMatch(/^messages\.2\.content\.0\.content\.0\.cache_control\.ttl: a ttl='1h' cache_control block must not come after a ttl='5m'/);
  });

  it('a marker inside a tool_result caches the prefix through that tool_result, and moving it keeps the prefix', async () => {
    const { assistant, toolUseId } = await toolTurn(longSystem);
    const conversation = (resultBlock: Record<string, unknown>) => [{ role: 'user', content: 'Build a site for Luna Bakery.' }, assistant, { role: 'user', content: [resultBlock] }];
    const nested = await send(
      body({ system: longSystem, messages: conversation({ type: 'tool_result', tool_use_id: toolUseId, content: [{ type: 'text', text: 'done', cache_control: ephemeral }] }) }),
    );
    expect(nested.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(nested.usage.input_tokens).toBe(0);
    const own = await send(
      body({ system: longSystem, messages: conversation({ type: 'tool_result', tool_use_id: toolUseId, content: [{ type: 'text', text: 'done' }], cache_control: ephemeral }) }),
    );
    expect(own.usage.cache_read_input_tokens).toBe(nested.usage.cache_creation_input_tokens);
  });
});

describe('prompt caching and thinking blocks of earlier turns (docs: "Caching with thinking blocks")', () => {
  const THINKING = { type: 'enabled', budget_tokens: 1024 } as const;

  /** Three requests: a thinking turn (its opening cached), its tool result (cached), then a new user turn (cached). */
  async function threeRequests(model: string) {
    const system = [{ type: 'text', text: longSystem }];
    const opening = { role: 'user', content: [{ type: 'text', text: 'Build a site for Luna Bakery.', cache_control: ephemeral }] };
    const base = { model, max_tokens: 4096, thinking: THINKING, system };
    const first = await send(body({ ...base, messages: [opening] }));
    expect(first.content[0]?.type).toBe('thinking');
    const answerTo = (content: Anthropic.ContentBlock[]) => {
      const blocks: Array<Record<string, unknown>> = content
        .filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use')
        .map((block) => ({ type: 'tool_result', tool_use_id: block.id, content: 'done' }));
      blocks[blocks.length - 1] = { ...blocks[blocks.length - 1], cache_control: ephemeral };
      return { role: 'user', content: blocks };
    };
    const plainOpening = { role: 'user', content: [{ type: 'text', text: 'Build a site for Luna Bakery.' }] };
    const loop = [plainOpening, { role: 'assistant', content: first.content }, answerTo(first.content)];
    const second = await send(body({ ...base, messages: loop }));
    const uncached = (message: { role: string; content: Array<Record<string, unknown>> }) => ({
      ...message,
      content: message.content.map(({ cache_control: _cacheControl, ...rest }) => rest),
    });
    // A new user turn: text only (the loop's last answer is stood in for by a text reply, so no tool_use waits for a result).
    const thirdMessages = [
      ...loop.slice(0, 2),
      uncached(loop[2] as never),
      { role: 'assistant', content: [{ type: 'text', text: 'The plan is written.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Please go on.', cache_control: ephemeral }] },
    ];
    const third = await send(body({ ...base, messages: thirdMessages }));
    /** The third request with the first answer's thinking block left out (a completed turn may drop it). */
    const withoutThinking = () => {
      const messages = thirdMessages.map((message, index) =>
        index === 1 ? { ...message, content: (message.content as Array<{ type: string }>).filter((block) => block.type !== 'thinking') } : message,
      );
      return send(body({ ...base, messages }));
    };
    return { first, second, third, withoutThinking };
  }

  it('a model that keeps earlier thinking reads the tool-loop prefix after a new user turn', async () => {
    const { second, third } = await threeRequests('claude-sonnet-4-6');
    expect(third.usage.cache_read_input_tokens).toBe((second.usage.cache_read_input_tokens ?? 0) + (second.usage.cache_creation_input_tokens ?? 0));
  });

  it('a model that keeps only the current turn’s thinking strips it: the new turn reads only what came before the thinking block', async () => {
    const { first, second, third, withoutThinking } = await threeRequests('claude-sonnet-4-5');
    const beforeThinking = first.usage.cache_creation_input_tokens ?? 0;
    expect(beforeThinking).toBeGreaterThan(0);
    expect(second.usage.cache_read_input_tokens).toBe(beforeThinking);
    expect(third.usage.cache_read_input_tokens).toBe(beforeThinking);
    // The stripped thinking is not input either: the prompt is the one sent without it.
    expect(total(third.usage)).toBe(total((await withoutThinking()).usage));
  });

  it('a model that keeps earlier thinking counts it as input', async () => {
    const { third, withoutThinking } = await threeRequests('claude-sonnet-4-6');
    expect(total(third.usage)).toBeGreaterThan(total((await withoutThinking()).usage));
  });
});
