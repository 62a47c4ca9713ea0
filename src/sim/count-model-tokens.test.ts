// The newer tokenizer through the real SDK: the same text costs ~30% more tokens on the models that
// use it (docs build-with-claude/token-counting), in count_tokens, in usage and in the context-window
// check alike; count_tokens answers what a Messages call with the same body reports as its input.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';
import { charactersForTokens, countModelTokens } from './count-model-tokens.js';

let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient()));
afterAll(() => simulator.close());

const OFF = { 'x-buildfleet-text-calls': 'off' };
// 4,000 characters of system prompt: 1,000 classic tokens, 1,300 on the newer tokenizer.
const SYSTEM = 'Bakery sites need a menu. '.repeat(160).slice(0, 4000);
const conversation = { system: SYSTEM, messages: [{ role: 'user' as const, content: 'Build a site for Luna Bakery.' }] };
const totalInput = (usage: Anthropic.Usage) => usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);

describe('tokens per model', () => {
  it('counts 1.3 tokens on the newer tokenizer for every classic one, and a budget holds the inverse', () => {
    expect(countModelTokens({ characters: 520, model: { tokenizer: 'classic' } })).toBe(130);
    expect(countModelTokens({ characters: 400, model: { tokenizer: 'newer' } })).toBe(130);
    expect(charactersForTokens({ tokens: 130, model: { tokenizer: 'newer' } })).toBe(400);
    expect(charactersForTokens({ tokens: 130, model: { tokenizer: 'classic' } })).toBe(520);
  });

  it('the same prompt counts 1.3x on claude-sonnet-5-5 against claude-sonnet-4-6, via countTokens and via usage', async () => {
    const older = await client.messages.countTokens({ model: 'claude-sonnet-4-6', ...conversation });
    const newer = await client.messages.countTokens({ model: 'claude-sonnet-5-5', ...conversation });
    expect(newer.input_tokens / older.input_tokens).toBeCloseTo(1.3, 2);

    const olderMessage = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 2000, ...conversation }, { headers: OFF });
    const newerMessage = await client.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 2000, ...conversation }, { headers: OFF });
    expect(totalInput(olderMessage.usage)).toBe(older.input_tokens);
    expect(totalInput(newerMessage.usage)).toBe(newer.input_tokens);
  });

  it('output costs more tokens on the newer tokenizer too, and max_tokens holds fewer characters', async () => {
    // Claude Sonnet 5 (newer tokenizer, thinking may be disabled) writes the same answer as Sonnet 4.6.
    const request = { ...conversation, thinking: { type: 'disabled' as const } };
    const older = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 2000, ...request }, { headers: OFF });
    const newer = await client.messages.create({ model: 'claude-sonnet-5', max_tokens: 2000, ...request }, { headers: OFF });
    expect(newer.content).toEqual(older.content);
    expect(newer.usage.output_tokens / older.usage.output_tokens).toBeCloseTo(1.3, 1);

    const textOf = (message: Anthropic.Message) => message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    const cutOlder = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 13, ...request }, { headers: OFF });
    const cutNewer = await client.messages.create({ model: 'claude-sonnet-5', max_tokens: 13, ...request }, { headers: OFF });
    expect([cutOlder.stop_reason, cutNewer.stop_reason]).toEqual(['max_tokens', 'max_tokens']);
    expect([textOf(cutOlder).length, textOf(cutNewer).length]).toEqual([52, 40]);
  });

  it('a prompt that fits the window in classic tokens is too long in the newer ones', async () => {
    // 3,200,000 characters: 800,000 classic tokens, 1,040,000 newer ones, against 1,000,000-token windows.
    const system = 'x'.repeat(3_200_000);
    const body = { system, messages: [{ role: 'user' as const, content: 'Hi' }] };
    expect((await client.messages.countTokens({ model: 'claude-sonnet-4-6', ...body })).input_tokens).toBeLessThan(1_000_000);
    const error = await client.messages.countTokens({ model: 'claude-sonnet-5-5', ...body }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).message).toMatch(/prompt is too long: 1040\d{3} tokens > 1000000 maximum/);
  });
});

describe('POST /v1/messages/count_tokens', () => {
  it('validates like Messages: unknown model 404, bad roles 400, max_tokens is an extra input', async () => {
    const unknown = await client.messages.countTokens({ model: 'claude-nope', messages: [{ role: 'user', content: 'Hi' }] }).catch((thrown: unknown) => thrown);
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
    const badRole = await client.messages.countTokens({ model: 'claude-sonnet-4-6', messages: [{ role: 'assistant', content: 'Hi' }] }).catch((thrown: unknown) => thrown);
    expect(badRole).toBeInstanceOf(Anthropic.BadRequestError);
    const withMaxTokens = await client.messages
      .countTokens({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 10 } as Anthropic.MessageCountTokensParams)
      .catch((thrown: unknown) => thrown);
    expect((withMaxTokens as InstanceType<typeof Anthropic.BadRequestError>).message).toContain('max_tokens: Extra inputs are not permitted');
  });

  it('needs credentials and appears in the request log as its own endpoint', async () => {
    const anonymous = await fetch(`${simulator.url}/v1/messages/count_tokens`, { method: 'POST', headers: { 'anthropic-version': '2023-06-01' }, body: '{}' });
    expect(anonymous.status).toBe(401);
    await client.messages.countTokens({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'Hi' }] });
    const log = (await (await fetch(`${simulator.url}/_sim/requests`)).json()) as { requests: Array<{ endpoint: string; status: number }> };
    expect(log.requests.filter((entry) => entry.endpoint === 'count-tokens').map((entry) => entry.status).slice(-2)).toEqual([401, 200]);
  });
});
