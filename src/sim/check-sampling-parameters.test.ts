// temperature / top_p / top_k per model and API version, through the real SDK (check-sampling-parameters.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from './simulator-server.js';
import { rawMessages } from './testing/raw-messages.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

let simulator: RunningSimulator;
let api: ReturnType<typeof rawMessages>;
beforeAll(async () => {
  const started = await startSimulatorWithClient();
  simulator = started.simulator;
  api = rawMessages({ client: started.client });
});
afterAll(() => simulator.close());

const body = (model: string, extra: Record<string, unknown> = {}) => ({ model, max_tokens: 200, messages: [{ role: 'user', content: 'Hello.' }], ...extra });
const VERSION_2026_10_21 = { 'anthropic-version': '2026-10-21' };

describe('sampling parameters', () => {
  it('non-default values are refused on the models that refuse sampling; defaults pass', async () => {
    for (const model of ['claude-opus-4-7', 'claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-fable-5-2']) {
      for (const [field, value] of [['temperature', 0.5], ['top_p', 0.9], ['top_k', 40]] as const) {
        expect(await api.failure(body(model, { [field]: value })), `${model} ${field}`).toEqual({
          status: 400,
          type: 'invalid_request_error',
          message: `${field}: non-default sampling parameters are not supported for this model. Remove temperature, top_p and top_k.`,
        });
      }
      expect((await api.send(body(model, { temperature: 1, top_p: 0.99 }))).type, model).toBe('message');
    }
    expect((await api.send(body('claude-sonnet-4-6', { temperature: 0.2, top_k: 40 }))).type).toBe('message');
  });

  it('API version 2026-10-21 refuses all three, even at their defaults', async () => {
    for (const field of ['temperature', 'top_p', 'top_k']) {
      expect((await api.failure(body('claude-sonnet-4-6', { [field]: 1 }), VERSION_2026_10_21)).message, field).toBe(`${field}: Extra inputs are not permitted`);
    }
    expect((await api.send(body('claude-sonnet-4-6'), VERSION_2026_10_21)).type).toBe('message');
  });
});
