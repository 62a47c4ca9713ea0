// The `thinking` field per model generation, through the real SDK (parse-thinking-setting.ts).
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

const TOOLS = [{ name: 'todo_write', description: 'plan', input_schema: { type: 'object', properties: {} } }];
const body = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 4096,
  messages: [{ role: 'user', content: 'Build a site for Luna Bakery.' }],
  tools: TOOLS,
  ...extra,
});
const DISABLED_NOT_SUPPORTED =
  '"thinking.type.disabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.';
const effortRefused = (effort: string) =>
  `output_config.effort '${effort}' is not supported when thinking is disabled on this model. Use effort 'high' or below, or enable thinking.`;
const thinkingBlocks = (message: Anthropic.Message) => message.content.filter((block) => block.type === 'thinking');

describe('an omitted thinking field', () => {
  it('means adaptive thinking where the model thinks by default, with the model’s display', async () => {
    for (const model of ['claude-opus-5', 'claude-sonnet-5-5', 'claude-fable-5-2', 'claude-haiku-5-5', 'claude-sonnet-5']) {
      const answer = await api.send(body(model));
      expect(answer.content[0], model).toMatchObject({ type: 'thinking', thinking: '' });
      expect((answer.content[0] as Anthropic.ThinkingBlock).signature.length, model).toBeGreaterThan(0);
    }
  });

  it('means no thinking on models that think only when asked', async () => {
    for (const model of ['claude-opus-4-8', 'claude-sonnet-4-6', 'claude-sim']) {
      expect(thinkingBlocks(await api.send(body(model))), model).toEqual([]);
    }
  });
});

describe('disabled', () => {
  it('is refused where thinking is always on, with the documented messages', async () => {
    for (const model of ['claude-opus-5-5', 'claude-fable-5-1', 'claude-mythos-5-2', 'claude-fable-5']) {
      expect(await api.failure(body(model, { thinking: { type: 'disabled' } })), model).toEqual({
        status: 400,
        type: 'invalid_request_error',
        message: DISABLED_NOT_SUPPORTED,
      });
    }
    const sonnet = await api.failure(body('claude-sonnet-5-5', { thinking: { type: 'disabled' } }));
    expect(sonnet.message).toBe(
      'To turn thinking off on this model, send "thinking": {"type": "between_tools"} instead of {"type": "disabled"}. ' +
        'The model does not think before responding. The short updates it writes between tool calls come back as thinking blocks.',
    );
  });

  it('is accepted only at effort high or below on Opus 5 and Haiku 5.5, and Opus 4.8 refuses xhigh / max with thinking off', async () => {
    for (const model of ['claude-opus-5', 'claude-haiku-5-5']) {
      expect(thinkingBlocks(await api.send(body(model, { thinking: { type: 'disabled' }, output_config: { effort: 'high' } }))), model).toEqual([]);
      for (const effort of ['xhigh', 'max']) {
        expect((await api.failure(body(model, { thinking: { type: 'disabled' }, output_config: { effort } }))).message, model).toBe(effortRefused(effort));
      }
    }
    expect((await api.failure(body('claude-opus-4-8', { output_config: { effort: 'max' } }))).message).toBe(effortRefused('max'));
    expect(thinkingBlocks(await api.send(body('claude-opus-4-8', { thinking: { type: 'adaptive' }, output_config: { effort: 'max' } }))).length).toBe(1);
    expect(thinkingBlocks(await api.send(body('claude-sonnet-5', { thinking: { type: 'disabled' }, output_config: { effort: 'max' } })))).toEqual([]);
  });

  it('takes no display', async () => {
    expect((await api.failure(body('claude-sonnet-4-6', { thinking: { type: 'disabled', display: 'omitted' } }))).message).toBe(
      'thinking.disabled.display: Extra inputs are not permitted',
    );
  });
});

describe('between_tools', () => {
  it('is Sonnet 5.5’s lowest setting: no thinking up front, and only text without tools', async () => {
    const answer = await api.send(body('claude-sonnet-5-5', { thinking: { type: 'between_tools' } }));
    expect(answer.content.map((block) => block.type)).toEqual(['text', 'tool_use']);
    const withoutTools = await api.send({ ...body('claude-sonnet-5-5', { thinking: { type: 'between_tools' } }), tools: undefined });
    expect(withoutTools.content.map((block) => block.type)).toEqual(['text']);
  });

  it('is refused elsewhere, with any other field, and above effort high', async () => {
    expect((await api.failure(body('claude-opus-5-5', { thinking: { type: 'between_tools' } }))).message).toBe(
      '"thinking.type.between_tools" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
    );
    for (const [field, value] of [['display', 'updates'], ['budget_tokens', 2048], ['block_binding', {}]] as const) {
      expect((await api.failure(body('claude-sonnet-5-5', { thinking: { type: 'between_tools', [field]: value } }))).message, field).toBe(
        `thinking.between_tools.${field}: Extra inputs are not permitted`,
      );
    }
    for (const effort of ['xhigh', 'max']) {
      expect((await api.failure(body('claude-sonnet-5-5', { thinking: { type: 'between_tools' }, output_config: { effort } }))).status).toBe(400);
    }
    expect((await api.send(body('claude-sonnet-5-5', { thinking: { type: 'between_tools' }, output_config: { effort: 'low' } }))).type).toBe('message');
  });
});

describe('display', () => {
  it('omitted: empty text and a signature, JSON and streamed (one empty thinking_delta, then the signature_delta)', async () => {
    const request = body('claude-opus-4-7', { thinking: { type: 'adaptive', display: 'omitted' } });
    const json = await api.send(request);
    expect(json.content[0]).toMatchObject({ type: 'thinking', thinking: '' });
    const { message, events } = await api.stream(request);
    expect(message.content[0]).toMatchObject({ type: 'thinking', thinking: '' });
    const deltas = events.flatMap((event) => (event.type === 'content_block_delta' && event.index === 0 ? [event.delta] : []));
    expect(deltas.map((delta) => delta.type)).toEqual(['thinking_delta', 'signature_delta']);
    expect(deltas[0]).toEqual({ type: 'thinking_delta', thinking: '' });
    expect(message.usage.output_tokens).toBe(json.usage.output_tokens);
  });

  it('summarized: the text; the hidden reasoning is billed the same', async () => {
    const summarized = await api.send(body('claude-opus-4-7', { thinking: { type: 'adaptive', display: 'summarized' } }));
    expect((summarized.content[0] as Anthropic.ThinkingBlock).thinking).toMatch(/Next I will call todo_write/);
    const omitted = await api.send(body('claude-opus-4-7', { thinking: { type: 'adaptive', display: 'omitted' } }));
    expect(omitted.usage.output_tokens).toBe(summarized.usage.output_tokens);
  });

  it('updates: only with its beta on the models that write progress updates, else the unknown-value 400', async () => {
    const updates = { thinking: { type: 'adaptive', display: 'updates' } };
    const unknownValue = "thinking.adaptive.display: Input should be 'summarized' or 'omitted'";
    expect((await api.failure(body('claude-opus-5-5', updates))).message).toBe(unknownValue);
    expect((await api.failure(body('claude-opus-5-5', { thinking: { type: 'adaptive', display: 'verbose' } }))).message).toBe(unknownValue);
    const beta = { 'anthropic-beta': 'thinking-display-updates-2026-08-18' };
    expect((await api.failure(body('claude-opus-5', updates), beta)).message).toBe(unknownValue);
    expect((await api.send(body('claude-opus-5-5', updates), beta)).content[0]).toMatchObject({ type: 'thinking', thinking: '' });
  });
});

describe('block_binding', () => {
  it('needs the thinking-binding-controls beta, and takes error or drop_block', async () => {
    const binding = { thinking: { type: 'adaptive', block_binding: { prefix_mismatch_behavior: 'drop_block' } } };
    expect((await api.failure(body('claude-opus-5-5', binding))).message).toBe('thinking.adaptive.block_binding: Extra inputs are not permitted');
    const beta = { 'anthropic-beta': 'thinking-binding-controls-2026-08-01' };
    expect((await api.send(body('claude-opus-5-5', binding), beta)).type).toBe('message');
    const wrong = { thinking: { type: 'adaptive', block_binding: { prefix_mismatch_behavior: 'keep' } } };
    expect((await api.failure(body('claude-opus-5-5', wrong), beta)).message).toBe(
      "thinking.adaptive.block_binding.prefix_mismatch_behavior: Input should be 'error' or 'drop_block'",
    );
  });
});
