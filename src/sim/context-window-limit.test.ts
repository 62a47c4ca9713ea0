// Prompt + max_tokens against the context window, through the real SDK: every model still served
// accepts the request (docs build-with-claude/extended-thinking, "Max tokens and context window
// size": "On Claude 4.5 models and newer … the API accepts the request"); the older ones that
// answered 400 are retired.
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

describe('prompt + max_tokens beyond the context window', () => {
  it('the models that held prompt + max_tokens to the window are retired: the API answers 404 for them', async () => {
    // Claude 3.7 Sonnet and the Claude 4 models before 4.5 retired in 2026 (about-claude/model-deprecations).
    for (const model of ['claude-sonnet-4-20250514', 'claude-opus-4-1', 'claude-3-7-sonnet-latest']) {
      const error = await send(model, 20_000).catch((thrown: unknown) => thrown);
      expect(error, model).toBeInstanceOf(Anthropic.NotFoundError);
    }
  });

  it('Claude 4.5 and newer accept the request', async () => {
    for (const model of ['claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-opus-4-5']) {
      expect((await send(model, 20_000)).type, model).toBe('message');
    }
  });
});
