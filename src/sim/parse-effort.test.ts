// `output_config.effort` per model, through the real SDK (parse-effort.ts, compose-thinking.ts).
import type Anthropic from '@anthropic-ai/sdk';
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
  max_tokens: 8192,
  messages: [{ role: 'user', content: 'Build a site for Luna Bakery.' }],
  tools: [{ name: 'todo_write', description: 'plan', input_schema: { type: 'object', properties: {} } }],
  ...extra,
});
const thinkingText = (message: Anthropic.Message) => (message.content[0] as Anthropic.ThinkingBlock).thinking;

describe('effort', () => {
  it('is validated against the model’s levels', async () => {
    expect((await api.failure(body('claude-opus-4-7', { output_config: { effort: 'adaptive' } }))).message).toBe(
      "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'",
    );
    expect((await api.failure(body('claude-haiku-4-5', { output_config: { effort: 'low' } }))).message).toBe(
      'output_config.effort: effort is not supported on this model',
    );
    expect((await api.failure(body('claude-sonnet-4-6', { output_config: { effort: 'xhigh' } }))).message).toBe(
      "output_config.effort: 'xhigh' is not supported on this model. Supported levels: low, medium, high, max",
    );
    expect((await api.send(body('claude-sonnet-4-6', { output_config: { effort: 'max' } }))).type).toBe('message');
  });

  it('scales how much the model thinks: low < medium < high < xhigh < max', async () => {
    const lengths: number[] = [];
    for (const effort of ['low', 'medium', 'high', 'xhigh', 'max']) {
      const answer = await api.send(body('claude-opus-4-7', { thinking: { type: 'adaptive', display: 'summarized' }, output_config: { effort } }));
      lengths.push(thinkingText(answer).length);
    }
    expect([...lengths].sort((left, right) => left - right)).toEqual(lengths);
    expect(new Set(lengths).size).toBe(5);
  });

  it('defaults to the model’s own level: medium on Opus 5.5, high on Sonnet 5.5', async () => {
    const summarized = { thinking: { type: 'adaptive', display: 'summarized' } };
    const opus = thinkingText(await api.send(body('claude-opus-5-5', summarized)));
    expect(thinkingText(await api.send(body('claude-opus-5-5', { ...summarized, output_config: { effort: 'medium' } })))).toBe(opus);
    expect(thinkingText(await api.send(body('claude-opus-5-5', { ...summarized, output_config: { effort: 'high' } })))).not.toBe(opus);
    const sonnet = thinkingText(await api.send(body('claude-sonnet-5-5', summarized)));
    expect(thinkingText(await api.send(body('claude-sonnet-5-5', { ...summarized, output_config: { effort: 'high' } })))).toBe(sonnet);
  });
});
