import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { KNOWN_MODELS, lookupModel, modelSupportsThinking } from './model-catalog.js';
import type { RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient()));
afterAll(() => simulator.close());

const OFF = { 'x-buildfleet-text-calls': 'off' };

function send(body: Record<string, unknown>) {
  return client.messages.create(
    { max_tokens: 100, messages: [{ role: 'user', content: 'Build a site for Luna Bakery.' }], ...body } as unknown as Anthropic.MessageCreateParamsNonStreaming,
    // An explicit timeout: the SDK refuses non-streaming calls with a large max_tokens otherwise.
    { headers: OFF, timeout: 60_000 },
  );
}

async function failure(body: Record<string, unknown>) {
  const error = await send(body).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Anthropic.APIError);
  const apiError = error as InstanceType<typeof Anthropic.APIError>;
  return { status: apiError.status, type: apiError.type, message: (apiError.error as { error: { message: string } }).error.message };
}

describe('the model catalog', () => {
  it('knows the fleet’s default model and every alias and dated id, and answers with the name asked for', async () => {
    const fleetDefault = loadConfig({}).BUILDFLEET_MODEL;
    expect(lookupModel({ model: fleetDefault })).toBeDefined();
    for (const model of [fleetDefault, 'claude-sonnet-4-5', 'claude-sonnet-4-5-20250929', 'claude-opus-4-5', 'claude-haiku-4-5', 'claude-haiku-5-5', 'claude-fable-5-2']) {
      const answer = await send({ model });
      expect(answer.model).toBe(model);
    }
    expect(lookupModel({ model: 'claude-haiku-4-5' })?.id).toBe('claude-haiku-4-5-20251001');
    expect(new Set(KNOWN_MODELS.flatMap((model) => model.names)).size).toBe(KNOWN_MODELS.flatMap((model) => model.names).length);
  });

  it('answers an unknown model 404 not_found_error "model: <id>"', async () => {
    expect(await failure({ model: 'claude-sonnet-9' })).toEqual({ status: 404, type: 'not_found_error', message: 'model: claude-sonnet-9' });
  });

  it('answers a retired model as the API does: 404 not_found_error "model: <id>" (about-claude/model-deprecations)', async () => {
    for (const model of ['claude-sonnet-4-0', 'claude-opus-4-1-20250805', 'claude-3-5-haiku-latest']) {
      expect(await failure({ model }), model).toEqual({ status: 404, type: 'not_found_error', message: `model: ${model}` });
    }
  });

  it('refuses max_tokens above the model’s max output with the real message', async () => {
    expect(await failure({ model: 'claude-opus-4-5', max_tokens: 64_001 })).toEqual({
      status: 400,
      type: 'invalid_request_error',
      message: 'max_tokens: 64001 > 64000, which is the maximum allowed number of output tokens for claude-opus-4-5-20251101',
    });
    expect((await send({ model: 'claude-opus-4-5', max_tokens: 64_000 })).type).toBe('message');
  });

  it('refuses a prompt longer than the context window', async () => {
    const result = await failure({ model: 'claude-haiku-4-5', system: 'x'.repeat(4 * 200_001) });
    expect(result.status).toBe(400);
    expect(result.type).toBe('invalid_request_error');
    expect(result.message).toMatch(/^prompt is too long: \d+ tokens > 200000 maximum$/);
  });

  it('says which models think', () => {
    expect(modelSupportsThinking('claude-sonnet-4-6')).toBe(true);
    expect(modelSupportsThinking('claude-fable-5-2')).toBe(true);
    expect(modelSupportsThinking('claude-3-5-haiku-20241022')).toBe(false);
    expect(modelSupportsThinking('claude-unknown')).toBe(false);
  });
});
