// Prompt + max_tokens against the context window, through the real SDK: Claude 3.7 Sonnet and the
// Claude 4 models before 4.5 answer the real 400, newer models accept the request (docs
// build-with-claude/extended-thinking, "Max tokens and context window size").
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient()));
afterAll(() => simulator.close());

const OFF = { 'x-buildfleet-text-calls': 'off' };
// About 190,000 estimated tokens (characters / 4, token-estimate.ts) of a 200,000-token window.
const LONG_SYSTEM = 'x'.repeat(4 * 190_000);

function send(model: string, maxTokens: number, thinking?: Anthropic.ThinkingConfigParam) {
  return client.messages.create(
    { model, max_tokens: maxTokens, system: LONG_SYSTEM, messages: [{ role: 'user', content: 'Build a site for Luna Bakery.' }], ...(thinking ? { thinking } : {}) },
    // An explicit timeout: the SDK refuses non-streaming calls with a large max_tokens otherwise.
    { headers: OFF, timeout: 60_000 },
  );
}

async function rejection(model: string, maxTokens: number, thinking?: Anthropic.ThinkingConfigParam): Promise<string> {
  const error = await send(model, maxTokens, thinking).catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(Anthropic.BadRequestError);
  return ((error as InstanceType<typeof Anthropic.BadRequestError>).error as { error: { message: string } }).error.message;
}

describe('prompt + max_tokens beyond the context window', () => {
  it('older models answer the real 400, thinking budget included in max_tokens', async () => {
    for (const model of ['claude-sonnet-4-20250514', 'claude-opus-4-1', 'claude-3-7-sonnet-latest']) {
      expect(await rejection(model, 20_000), model).toMatch(
        /^input length and `max_tokens` exceed context limit: \d+ \+ 20000 > 200000, decrease input length or `max_tokens` and try again$/,
      );
    }
    expect(await rejection('claude-sonnet-4-0', 12_000, { type: 'enabled', budget_tokens: 8_000 })).toMatch(/\+ 12000 > 200000/);
    // Within the window they answer.
    expect((await send('claude-sonnet-4-0', 4_000)).type).toBe('message');
  });

  it('Claude 4.5 and newer accept the request, as do the pre-3.7 models that lowered max_tokens themselves', async () => {
    for (const model of ['claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-opus-4-5']) {
      expect((await send(model, 20_000)).type, model).toBe('message');
    }
    expect((await send('claude-3-5-haiku-latest', 8_192)).type).toBe('message');
  });
});
