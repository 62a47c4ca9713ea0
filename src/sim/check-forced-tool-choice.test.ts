// Forced tool_choice per model generation, through the real SDK (check-forced-tool-choice.ts, add-thinking.ts).
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

const body = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 4096,
  messages: [{ role: 'user', content: 'Build a site for Luna Bakery.' }],
  tools: [{ name: 'todo_write', description: 'plan', input_schema: { type: 'object', properties: {} } }],
  ...extra,
});
const FORCED = [{ type: 'any' }, { type: 'tool', name: 'todo_write' }];

describe('forced tool_choice', () => {
  it('is refused on Sonnet 5.5, Opus 5.5 and Fable / Mythos 5.1 and later; auto and none still work', async () => {
    for (const model of ['claude-sonnet-5-5', 'claude-opus-5-5', 'claude-fable-5-1', 'claude-fable-5-2', 'claude-mythos-5-1', 'claude-mythos-5-2']) {
      for (const toolChoice of FORCED) {
        expect(await api.failure(body(model, { tool_choice: toolChoice })), model).toEqual({
          status: 400,
          type: 'invalid_request_error',
          message: 'tool_choice: type "tool" and "any" are not supported for this model.',
        });
      }
      expect((await api.send(body(model, { tool_choice: { type: 'none' } }))).stop_reason, model).toBe('end_turn');
    }
  });

  it('skips thinking on Haiku 5.5 and with adaptive thinking elsewhere: the answer starts with the tool call', async () => {
    for (const [model, thinking] of [
      ['claude-haiku-5-5', undefined],
      ['claude-opus-5', undefined],
      ['claude-fable-5', undefined],
      ['claude-sonnet-4-6', { type: 'adaptive' }],
    ] as const) {
      for (const toolChoice of FORCED) {
        const answer = await api.send(body(model, { tool_choice: toolChoice, ...(thinking ? { thinking } : {}) }));
        expect(answer.content.map((block) => block.type), model).toEqual(['tool_use']);
      }
      expect((await api.send(body(model, thinking ? { thinking } : {}))).content[0]?.type, model).toBe('thinking');
    }
  });

  it('is refused with manual thinking', async () => {
    expect((await api.failure(body('claude-sonnet-4-6', { tool_choice: { type: 'any' }, thinking: { type: 'enabled', budget_tokens: 1024 } }))).message).toBe(
      'Thinking may not be enabled when tool_choice forces tool use.',
    );
  });
});
